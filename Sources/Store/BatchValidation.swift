import Foundation
import Model

/// An import batch checked before anything is written.
struct ValidatedBatch {
    var batch: ImportBatch
    /// The readings to insert: the batch's readings without exact repeats, in batch order.
    var readings: [GlucoseReading]
    /// Readings that repeat an earlier reading of the same batch exactly; counted as already stored.
    var repeats: Int
    /// Records read that were not offered as readings.
    var skipped: Int

    /// Checks every reading and the batch as a whole.
    ///
    /// A reading is invalid when its value is not finite or not within 0 < mg/dL < 1000, its time
    /// is outside years 0001–9999, its record key or its note is empty, or its record key appeared
    /// earlier in the batch with different values. A reading repeated exactly is kept once.
    init(_ batch: ImportBatch) throws(StoreError) {
        try BatchChecks.source(batch.source)
        guard batch.recordsRead >= batch.glucose.count else {
            throw .invalidBatch(
                reason: "\(batch.glucose.count) readings were offered but only \(batch.recordsRead) records read")
        }
        try BatchChecks.times(startedAt: batch.startedAt, clock: batch.clock)
        if let stream = batch.cursors.keys.first(where: \.isEmpty) {
            throw .invalidBatch(reason: "a cursor has an empty stream name (\"\(stream)\")")
        }

        let readings = try BatchChecks.withoutRepeats(batch.glucose, key: \.recordKey, check: Self.check) { reading in
            .invalidReading(recordKey: reading.recordKey, reason: "the key appears twice in this import with different values")
        }
        self.batch = batch
        self.readings = readings
        self.repeats = batch.glucose.count - readings.count
        self.skipped = batch.recordsRead - batch.glucose.count
    }

    private static func check(_ reading: GlucoseReading) throws(StoreError) {
        guard !reading.recordKey.isEmpty else {
            throw .invalidReading(recordKey: "", reason: "the record key is empty")
        }
        guard reading.mgdl.isFinite, reading.mgdl > 0, reading.mgdl < 1000 else {
            throw .invalidReading(
                recordKey: reading.recordKey, reason: "\(reading.mgdl) mg/dL is not within 0 < mg/dL < 1000")
        }
        if let note = reading.note, note.isEmpty {
            throw .invalidReading(recordKey: reading.recordKey, reason: "its note is empty (leave it out instead)")
        }
        guard StoreTime.representable.contains(reading.time) else {
            throw .invalidReading(
                recordKey: reading.recordKey,
                reason: "its time (\(reading.time.timeIntervalSince1970) s since 1970) is outside years 0001–9999")
        }
    }
}

/// Checks every kind of import batch (glucose, activity) shares.
enum BatchChecks {
    /// The source must name a family and a serial number.
    static func source(_ source: DeviceSource) throws(StoreError) {
        guard !source.family.isEmpty, !source.serial.isEmpty else {
            throw .invalidBatch(reason: "the source \"\(source)\" needs a family and a serial number")
        }
    }

    /// The import's times must be within years 0001–9999 and its clock offset a number.
    static func times(startedAt: Date, clock: ClockReport) throws(StoreError) {
        for instant in [startedAt, clock.hostTime, clock.deviceTime].compactMap({ $0 }) {
            guard StoreTime.representable.contains(instant) else {
                throw .invalidBatch(reason: "the import time \(instant.timeIntervalSince1970) is outside years 0001–9999")
            }
        }
        if let offset = clock.offsetSeconds, !offset.isFinite {
            throw .invalidBatch(reason: "the clock offset is not a number")
        }
    }

    /// `items` without exact repeats, in their order, each passing `check`; an item whose key
    /// came earlier with different values throws `conflict(item)`.
    static func withoutRepeats<Item: Equatable, Key: Hashable>(
        _ items: [Item], key: (Item) -> Key, check: (Item) throws(StoreError) -> Void,
        conflict: (Item) -> StoreError
    ) throws(StoreError) -> [Item] {
        // Positions of first appearances, by key; one hash per item. Repeats are rare, so the
        // items are copied into a new array only from the first repeat on.
        var seen: [Key: Int] = [:]
        seen.reserveCapacity(items.count)
        var unique: [Item]?
        for (position, item) in items.enumerated() {
            try check(item)
            let itemKey = key(item)
            guard let first = seen.updateValue(position, forKey: itemKey) else {
                unique?.append(item)
                continue
            }
            seen[itemKey] = first
            guard items[first] == item else { throw conflict(item) }
            if unique == nil { unique = Array(items[..<position]) }
        }
        return unique ?? items
    }
}
