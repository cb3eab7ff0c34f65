/// A word of an import that is a type of its own rather than a string: made from a literal,
/// compared and sorted by its name, encoded as the string it names (the standard library's
/// coding of a `String` raw value) and printed as it.
public protocol ImportName: RawRepresentable<String>, Hashable, Comparable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    init(rawValue: String)
}

extension ImportName {
    public init(_ rawValue: String) {
        self.init(rawValue: rawValue)
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A kind of device as glucobridge names it: the driver family that reads it (`dexcom`,
/// `freestyle`, `ble-hrs`), and the family a source is stored under (`ble` for a Bluetooth
/// device's activity, whichever services it was read through).
public struct DeviceFamily: ImportName {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The family a Bluetooth device's activity is stored under, whichever activity services
    /// it was read through (the store lists them with the source).
    public static let bluetoothActivity: DeviceFamily = "ble"
}

/// A stream of a device's numbered records (`EGVData`, `activity`, `steps-day`): each record of
/// it has an index that rises, and the store keeps, per source and stream, the last index
/// imported (its cursor).
public struct RecordStream: ImportName {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }
}

/// How far a source's record streams have been read: the last record index of each stream.
/// A cursor only rises: ``raise(_:to:)`` and ``merging(_:)`` keep the higher index.
public struct RecordCursors: Hashable, Sendable, Codable, ExpressibleByDictionaryLiteral, Sequence, CustomStringConvertible {
    private var indexes: [RecordStream: Int64]

    public init() {
        indexes = [:]
    }

    public init(_ indexes: [RecordStream: Int64]) {
        self.indexes = indexes
    }

    public init(dictionaryLiteral elements: (RecordStream, Int64)...) {
        indexes = Dictionary(elements, uniquingKeysWith: Swift.max)
    }

    /// The last record index read of `stream`, when any was.
    public subscript(stream: RecordStream) -> Int64? {
        indexes[stream]
    }

    /// Raises the cursor of `stream` to `index`; a lower index leaves it as it is.
    public mutating func raise(_ stream: RecordStream, to index: Int64) {
        indexes[stream] = Swift.max(indexes[stream] ?? index, index)
    }

    /// These cursors and `other`'s, the higher index of each stream.
    public func merging(_ other: RecordCursors) -> RecordCursors {
        RecordCursors(indexes.merging(other.indexes, uniquingKeysWith: Swift.max))
    }

    /// The cursors of `streams` alone.
    public func only(_ streams: Set<RecordStream>) -> RecordCursors {
        RecordCursors(indexes.filter { streams.contains($0.key) })
    }

    public var isEmpty: Bool { indexes.isEmpty }

    /// The streams and their last indexes, by stream name.
    public var sorted: [(stream: RecordStream, index: Int64)] {
        indexes.sorted { $0.key < $1.key }.map { (stream: $0.key, index: $0.value) }
    }

    public func makeIterator() -> some IteratorProtocol<(stream: RecordStream, index: Int64)> {
        sorted.makeIterator()
    }

    /// Encoded as an object of each stream's last index by the stream's name.
    public init(from decoder: any Decoder) throws {
        let named = try decoder.singleValueContainer().decode([String: Int64].self)
        indexes = Dictionary(uniqueKeysWithValues: named.map { (RecordStream($0.key), $0.value) })
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Dictionary(uniqueKeysWithValues: indexes.map { ($0.key.rawValue, $0.value) }))
    }

    public var description: String {
        "[" + sorted.map { "\($0.stream): \($0.index)" }.joined(separator: ", ") + "]"
    }
}
