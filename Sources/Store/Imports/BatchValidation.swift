import Foundation
import Model
import Pipeline

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
        if let stream = batch.cursors.first(where: { $0.stream.rawValue.isEmpty })?.stream {
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
        guard !source.family.rawValue.isEmpty, !source.serial.isEmpty else {
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
    /// came earlier with different values throws `conflict(item)`. Inlined, so that `key` and
    /// `check` are called on each item in place: through a closure of generic type each item
    /// was copied (and destroyed) on every call.
    @inline(__always)
    static func withoutRepeats<Item: Equatable, Key: Hashable>(
        _ items: [Item], key: (Item) -> Key, check: (Item) throws(StoreError) -> Void,
        conflict: (Item) -> StoreError
    ) throws(StoreError) -> [Item] {
        // Positions of first appearances, by key; one look-up per item. Repeats are rare, so the
        // items are copied into a new array only from the first repeat on.
        // The items are read in place, not copied one by one out of the array.
        var seen = FirstPositions<Key>(capacity: items.count)
        let unique = try items.withUnsafeBufferPointer { (items) throws(StoreError) -> [Item]? in
            var unique: [Item]?
            for position in items.indices {
                try check(items[position])
                guard let first = seen.first(of: key(items[position]), at: position, keyAt: { key(items[$0]) }) else {
                    unique?.append(items[position])
                    continue
                }
                guard items[first] == items[position] else { throw conflict(items[position]) }
                if unique == nil { unique = Array(items[..<position]) }
            }
            return unique
        }
        return unique ?? items
    }
}

/// The position where each key of a batch first appeared.
///
/// Text keys (every record key) are kept in an open-addressing table of their hashes, made
/// with a few multiplications of their bytes: a dictionary would hash each key with SipHash,
/// several times the cost. SipHash's seed is there to make keys that collide on purpose
/// costly to find; here a key whose probe runs past `maximumProbes` slots (keys made to collide,
/// or a very unlucky batch) moves every key into a dictionary, so no capture can make the
/// check slower than a dictionary makes it. Other keys go into a dictionary from the start.
struct FirstPositions<Key: Hashable> {
    /// Each slot: a key's hash and its position, or position -1 for an empty slot.
    private var slots: [(hash: UInt64, position: Int)] = []
    private var dictionary: [Key: Int] = [:]
    private var usesTable: Bool
    private let maximumProbes: Int

    /// A table for `capacity` keys. `maximumProbes` (64 unless a test sets it) is the longest
    /// run of slots a key may be looked for in before every key moves to a dictionary.
    init(capacity: Int, maximumProbes: Int = 64) {
        self.maximumProbes = maximumProbes
        usesTable = Key.self == String.self
        if usesTable {
            // At most half full: probes stay short.
            var size = 16
            while size < 2 * capacity { size *= 2 }
            slots = Array(repeating: (0, -1), count: size)
        } else {
            dictionary.reserveCapacity(capacity)
        }
    }

    /// The position where `key` first appeared, or nil when this is its first appearance,
    /// which is then recorded at `position`. `keyAt` gives the key of an earlier position.
    mutating func first(of key: Key, at position: Int, keyAt: (Int) -> Key) -> Int? {
        if usesTable, let text = key as? String {
            let hash = TextKeyHash.hash(text)
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            for _ in 0..<maximumProbes {
                let entry = slots[slot]
                if entry.position < 0 {
                    slots[slot] = (hash, position)
                    return nil
                }
                if entry.hash == hash, keyAt(entry.position) == key { return entry.position }
                slot = (slot + 1) & mask
            }
            usesTable = false
            dictionary.reserveCapacity(slots.count / 2)
            for entry in slots where entry.position >= 0 {
                dictionary[keyAt(entry.position)] = entry.position
            }
            slots = []
        }
        guard let first = dictionary.updateValue(position, forKey: key) else { return nil }
        dictionary[key] = first
        return first
    }
}

/// The hash ``FirstPositions`` keeps text keys by: their UTF-8 bytes eight at a time, each word
/// mixed in by a multiplication by 2^64 / φ and a shift that brings its high bits down.
enum TextKeyHash {
    static func hash(_ text: String) -> UInt64 {
        // Every native string's bytes are contiguous; another (bridged) string is copied once.
        if let hash = text.utf8.withContiguousStorageIfAvailable(hash(bytes:)) { return hash }
        var text = text
        return text.withUTF8(hash(bytes:))
    }

    static func hash(bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let raw = UnsafeRawBufferPointer(bytes)
        var hash = 0x243F_6A88_85A3_08D3 ^ UInt64(raw.count)
        func mix(_ word: UInt64) {
            hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 29
        }
        var offset = 0
        while offset + 8 <= raw.count {
            mix(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        var tail: UInt64 = 0
        while offset < raw.count {
            tail = tail << 8 | UInt64(raw[offset])
            offset += 1
        }
        mix(tail)
        return hash
    }
}
