// What `import Store` brings besides the store itself, so that an app linking only the
// `GlucoBridgeStore` product can name every type the store's API uses:
// - Model: the value types of readings and logs (GlucoseUnit, GlucoseTag, ReadingKind, Trend,
//   DeviceSource, GlucoseThresholds, UserProfile, ...).
// - GRDB: the `DatabaseReader` of ``SharedStore/reader``, its `Database`, `Row` and
//   `ValueObservation`, for reads the store's methods do not offer.
@_exported import GRDB
@_exported import Model
