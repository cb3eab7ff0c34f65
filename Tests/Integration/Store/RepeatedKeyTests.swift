import XCTest

@testable import Store

/// The table a batch's repeated record keys are found in (``FirstPositions``), held to a
/// dictionary of first positions on the same keys.
final class RepeatedKeyTests: XCTestCase {
    /// Keys of every length around a word (8 bytes), repeats near and far, long keys that do
    /// not fit a small string, and keys alike but for their last byte.
    private static let keys: [String] = {
        var keys = (0..<3_000).map { "egv:\($0)" }
        keys += ["", "a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "meter:1", "meter:2", "meter:1"]
        keys += ["egv:17", "egv:2999", "egv:0", "meter:2"]
        keys += (0..<40).map { "a long record key of a meter, with its serial SM\($0 % 25)" }
        keys += ["séance:1", "séance:1", "s\u{E9}ance:2"]
        return keys
    }()

    /// What a dictionary says: for each key, nil at its first appearance, else that position.
    private static func expected(_ keys: [String]) -> [Int?] {
        var seen: [String: Int] = [:]
        return keys.enumerated().map { position, key in
            if let first = seen[key] { return first }
            seen[key] = position
            return nil
        }
    }

    private static func found(_ keys: [String], maximumProbes: Int) -> [Int?] {
        var table = FirstPositions<String>(capacity: keys.count, maximumProbes: maximumProbes)
        return keys.indices.map { table.first(of: keys[$0], at: $0, keyAt: { keys[$0] }) }
    }

    func testTheTableFindsWhatADictionaryFinds() {
        XCTAssertEqual(Self.found(Self.keys, maximumProbes: 64), Self.expected(Self.keys))
    }

    /// With probes of one slot, the first two keys whose hashes share a slot move every key to
    /// a dictionary, partway through: the answers are the same, before the move and after.
    func testKeysThatCollideMoveToADictionaryWithTheSameAnswers() {
        XCTAssertEqual(Self.found(Self.keys, maximumProbes: 1), Self.expected(Self.keys))
    }

    /// A table made for fewer keys than it is given (its slots run out) moves to a dictionary
    /// instead of probing for ever.
    func testATableGivenMoreKeysThanItWasMadeForStillAnswers() {
        var table = FirstPositions<String>(capacity: 1)
        let answers = Self.keys.indices.map { table.first(of: Self.keys[$0], at: $0, keyAt: { Self.keys[$0] }) }
        XCTAssertEqual(answers, Self.expected(Self.keys))
    }

    /// Other keys than text go to a dictionary from the start.
    func testOtherKeysUseADictionary() {
        let keys = [5, 7, 5, 9, 7, 7]
        var table = FirstPositions<Int>(capacity: keys.count)
        let answers = keys.indices.map { table.first(of: keys[$0], at: $0, keyAt: { keys[$0] }) }
        XCTAssertEqual(answers, [nil, nil, 0, nil, 1, 1])
    }

    /// The hash reads every byte: keys that differ in any one byte, or only in their length,
    /// hash apart, and a string's hash does not depend on how it is stored.
    func testTheHashReadsEveryByte() {
        let key = "meter:123456789012"
        let hash = TextKeyHash.hash(key)
        for position in key.utf8.indices {
            var bytes = Array(key.utf8)
            bytes[key.utf8.distance(from: key.utf8.startIndex, to: position)] ^= 1
            XCTAssertNotEqual(TextKeyHash.hash(String(decoding: bytes, as: UTF8.self)), hash)
        }
        XCTAssertNotEqual(TextKeyHash.hash("egv:1"), TextKeyHash.hash("egv:1\u{0}"))
        XCTAssertNotEqual(TextKeyHash.hash(""), TextKeyHash.hash("\u{0}"))
        let large = String(repeating: "x", count: 40)
        XCTAssertEqual(TextKeyHash.hash(large), TextKeyHash.hash(String(repeating: "x", count: 20) + String(repeating: "x", count: 20)))
    }
}
