import Drivers
import Foundation
import Model
import TestSupport
import Transport
import XCTest

/// InfiniTime's step count and Current Time values, on bytes laid out by hand from
/// InfiniTime's doc/MotionService.md and the GATT Current Time layout, and the step ledger that
/// turns reads into steps per minute.
final class InfiniTimeTests: XCTestCase {
    // MARK: - Values

    func testStepCountIsAFourByteLittleEndianCount() throws {
        XCTAssertEqual(try InfiniTimeStepCount.decode(hexBytes("10 27 00 00")), 10_000)
        XCTAssertEqual(try InfiniTimeStepCount.decode(hexBytes("FF FF FF FF")), UInt32.max)
    }

    func testShortOrLongStepCountIsRefusedByName() {
        XCTAssertThrowsError(try InfiniTimeStepCount.decode(hexBytes("10 27 00"))) { error in
            XCTAssertEqual(
                "\(error)",
                "Step Count (00030001-78fc-48fe-8e23-433b3a1942d0) at byte 0: the value ends before its step count (4 bytes needed, 3 left)")
        }
        XCTAssertThrowsError(try InfiniTimeStepCount.decode(hexBytes("10 27 00 00 01"))) { error in
            XCTAssertEqual("\(error)", "Step Count (00030001-78fc-48fe-8e23-433b3a1942d0) at byte 4: 5 bytes where the flags allow 4")
        }
    }

    func testCurrentTimeIsTheWatchWallClock() throws {
        // 2024-05-01 (a Wednesday, 3) 14:00:05 and 128/256 s, adjust reason 1 (manual).
        let time = try CurrentTime.decode(hexBytes("E8 07 05 01 0E 00 05 03 80 01"))
        XCTAssertEqual(time.dateTime, GATTDateTime(year: 2024, month: 5, day: 1, hours: 14, minutes: 0, seconds: 5))
        XCTAssertEqual(time.dayOfWeek, 3)
        XCTAssertEqual(time.adjustReason, 1)
        XCTAssertEqual(time.wallClockSeconds, 1_714_572_005.5)
        XCTAssertEqual(time.bytes, hexBytes("E8 07 05 01 0E 00 05 03 80 01"))
    }

    func testBadCurrentTimeNamesTheFieldAndByte() {
        let cases: [(String, String)] = [
            ("E8 07 05 01 0E 00 05 04 00 00", "Current Time (0x2A2B) at byte 7: day of week is 4 but 2024-05-01T14:00:05 is day 3 (1 = Monday)"),
            ("E8 07 0D 01 0E 00 05 03 00 00", "Current Time (0x2A2B) at byte 0: date time has month 13 (allowed 0–12)"),
            ("00 00 00 00 00 00 00 00 00 00", "Current Time (0x2A2B) at byte 0: date time is 0000-00-00T00:00:00: the watch's date is unknown"),
            (
                "E8 07 05 01 0E 00 05 03 00 10",
                "Current Time (0x2A2B) at byte 9: flags 0x10 set reserved bits 0x10, so the fields that follow cannot be located"
            ),
            ("E8 07 05 01 0E 00 05 03 00", "Current Time (0x2A2B) at byte 9: the value ends before its adjust reason (1 byte needed, 0 left)"),
        ]
        for (bytes, message) in cases {
            XCTAssertThrowsError(try CurrentTime.decode(hexBytes(bytes)), bytes) { error in XCTAssertEqual("\(error)", message, bytes) }
        }
    }

    // MARK: - Ledger

    /// A read at `utc` on a watch two hours ahead (Berlin in May).
    private func read(_ utc: String, _ steps: UInt32, watchAhead hours: Double = 2) -> InfiniTimeStepRead {
        let instant = ISO8601DateFormatter().date(from: utc)!
        return InfiniTimeStepRead(hostTime: instant, watchClock: instant.timeIntervalSince1970 + hours * 3600, steps: steps)
    }

    private func minute(_ utc: String) -> Int64 {
        Int64(ISO8601DateFormatter().date(from: utc)!.timeIntervalSince1970) / 60
    }

    func testFirstReadCountsFromTheWatchMidnight() {
        var ledger = InfiniTimeStepLedger(stored: nil)
        ledger.take([read("2024-05-01T12:00:30Z", 1682)])
        // The watch's midnight is 22:00Z the day before: 841 minutes to 12:00Z, 2 steps each.
        XCTAssertEqual(ledger.minutes.count, 841)
        XCTAssertEqual(ledger.minutes.first?.minute, minute("2024-04-30T22:00:00Z"))
        XCTAssertEqual(ledger.minutes.last?.minute, minute("2024-05-01T12:00:00Z"))
        XCTAssertEqual(Set(ledger.minutes.map(\.steps)), [2])
        XCTAssertEqual(ledger.cursor, InfiniTimeStepCursor(minute: minute("2024-05-01T12:00:00Z"), steps: 1682, watchDay: 19844))
        XCTAssertEqual(ledger.cursor?.cursors["steps"], minute("2024-05-01T12:00:00Z") << 32 | 1682)
    }

    func testDeltasWithinADayThenARestartThenMidnight() {
        let first = InfiniTimeStepCursor(minute: minute("2024-05-01T12:00:00Z"), steps: 1682, watchDay: 19844)
        var ledger = InfiniTimeStepLedger(stored: first)
        ledger.take([
            read("2024-05-01T12:10:10Z", 1782),
            // The watch restarted: 30 steps since, not −1752.
            read("2024-05-01T12:20:05Z", 30),
            // 00:05 on the watch: the counter restarted at its midnight.
            read("2024-05-01T22:05:00Z", 55),
        ])
        let byMinute = Dictionary(uniqueKeysWithValues: ledger.minutes.map { ($0.minute, $0.steps) })
        XCTAssertEqual(ledger.minutes.count, 10 + 10 + 6)
        XCTAssertEqual((1...10).map { byMinute[minute("2024-05-01T12:00:00Z") + Int64($0)] }, Array(repeating: 10, count: 10))
        XCTAssertEqual((11...20).map { byMinute[minute("2024-05-01T12:00:00Z") + Int64($0)] }, Array(repeating: 3, count: 10))
        XCTAssertEqual((0...5).map { byMinute[minute("2024-05-01T22:00:00Z") + Int64($0)] }, [9, 9, 9, 9, 9, 10])
        XCTAssertTrue(ledger.minutes.allSatisfy { $0.steps >= 0 })
        XCTAssertEqual(ledger.minutes.reduce(0) { $0 + $1.steps }, 100 + 30 + 55)
        XCTAssertTrue(ledger.notes.contains { $0.contains("went down from 1782 to 30") }, "\(ledger.notes)")
        XCTAssertEqual(ledger.cursor, InfiniTimeStepCursor(minute: minute("2024-05-01T22:05:00Z"), steps: 55, watchDay: 19845))
    }

    func testTheSameReadTwiceAddsNothing() {
        var once = InfiniTimeStepLedger(stored: nil)
        once.take([read("2024-05-01T12:00:30Z", 1682)])
        var again = InfiniTimeStepLedger(stored: once.cursor)
        again.take([read("2024-05-01T12:00:30Z", 1682)])
        // An older capture replayed.
        again.take([read("2024-05-01T11:00:30Z", 1000)])
        XCTAssertTrue(again.minutes.isEmpty)
        XCTAssertFalse(again.advanced)
        XCTAssertEqual(again.events.events, [ImportEvent(name: "step-read-already-stored", count: 2)])
    }

    func testReadsOfOneMinuteCountAsTheLastAndAReadInTheStoredMinuteWaits() {
        var ledger = InfiniTimeStepLedger(stored: InfiniTimeStepCursor(minute: minute("2024-05-01T12:00:00Z"), steps: 1682, watchDay: 19844))
        ledger.take([read("2024-05-01T12:00:50Z", 1690)])
        XCTAssertTrue(ledger.minutes.isEmpty)
        XCTAssertFalse(ledger.advanced)
        ledger.take([read("2024-05-01T12:01:10Z", 1700), read("2024-05-01T12:01:30Z", 1709), read("2024-05-01T12:01:50Z", 1718)])
        XCTAssertEqual(ledger.minutes.map(\.steps), [36])
        XCTAssertEqual(ledger.cursor?.steps, 1718)
    }

    func testACountCarriedOverFromYesterdayIsNotStored() {
        var ledger = InfiniTimeStepLedger(stored: nil)
        // 00:00:30 on the watch with yesterday's 5000 steps (InfiniTime issue 1270).
        ledger.take([read("2024-05-01T22:00:30Z", 5000)])
        XCTAssertTrue(ledger.minutes.isEmpty)
        XCTAssertEqual(ledger.events.events, [ImportEvent(name: "implausible-step-count", count: 1)])
        XCTAssertTrue(ledger.advanced)
    }
}
