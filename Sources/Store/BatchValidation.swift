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
        guard !batch.source.family.isEmpty, !batch.source.serial.isEmpty else {
            throw .invalidBatch(reason: "the source \"\(batch.source)\" needs a family and a serial number")
        }
        guard batch.recordsRead >= batch.glucose.count else {
            throw .invalidBatch(
                reason: "\(batch.glucose.count) readings were offered but only \(batch.recordsRead) records read")
        }
        for instant in [batch.startedAt, batch.clock.hostTime, batch.clock.deviceTime].compactMap({ $0 }) {
            guard StoreTime.representable.contains(instant) else {
                throw .invalidBatch(reason: "the import time \(instant.timeIntervalSince1970) is outside years 0001–9999")
            }
        }
        if let offset = batch.clock.offsetSeconds, !offset.isFinite {
            throw .invalidBatch(reason: "the clock offset is not a number")
        }
        if let stream = batch.cursors.keys.first(where: \.isEmpty) {
            throw .invalidBatch(reason: "a cursor has an empty stream name (\"\(stream)\")")
        }

        var seen: [String: Int] = [:]
        seen.reserveCapacity(batch.glucose.count)
        var readings: [GlucoseReading] = []
        readings.reserveCapacity(batch.glucose.count)
        var repeats = 0
        for reading in batch.glucose {
            try Self.check(reading)
            if let index = seen[reading.recordKey] {
                guard readings[index] == reading else {
                    throw .invalidReading(
                        recordKey: reading.recordKey,
                        reason: "the key appears twice in this import with different values")
                }
                repeats += 1
            } else {
                seen[reading.recordKey] = readings.count
                readings.append(reading)
            }
        }
        self.batch = batch
        self.readings = readings
        self.repeats = repeats
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
