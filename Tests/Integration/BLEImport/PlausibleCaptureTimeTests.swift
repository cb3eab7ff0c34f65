import Foundation
import ImportTestSupport
import Importer
import Model
import Store
import TestSupport
import XCTest

/// A btsnoop record whose timestamp was damaged (year 6591) gives no activity minute in that year.
final class PlausibleCaptureTimeTests: XCTestCase {
    func testDamagedRecordTimestampIsNotStored() throws {
        var bytes = [UInt8](try Data(contentsOf: Fixtures.url("ble/hr-40min-walk.btsnoop")))
        // Records follow the 16-byte file header: 24-byte record header (timestamp at 16, 8 bytes
        // big-endian microseconds since year 0), then the included bytes.
        var offset = 16
        var record = 0
        let damaged: UInt64 = 0x00E0_3AB4_4A67_6000 + 145_800_000_000 * 1_000_000
        while offset + 24 <= bytes.count {
            let included = Int(bytes[offset + 4]) << 24 | Int(bytes[offset + 5]) << 16 | Int(bytes[offset + 6]) << 8 | Int(bytes[offset + 7])
            record += 1
            if record == 1500 {
                for index in 0..<8 { bytes[offset + 16 + index] = UInt8(truncatingIfNeeded: damaged >> (56 - 8 * index)) }
            }
            offset += 24 + included
        }
        let capture = try Fixtures.temporaryDirectory().appendingPathComponent("damaged.btsnoop")
        try Data(bytes).write(to: capture)
        let store = try freshStore(zone: "America/Los_Angeles")
        try store.setUserProfile(UserProfile(age: 40))
        let outcome = try Importer(store: store).replayOneBLE(captureAt: capture)
        let activity = try XCTUnwrap(outcome.activity)
        XCTAssertTrue(activity.events.contains(ImportEvent(name: "implausible-time", count: 1)), "\(activity.events)")
        XCTAssertTrue(activity.notes.contains { $0.hasPrefix("1 sensor samples outside the plausible time window") }, "\(activity.notes)")
        let minutes = try store.activityMinutes(source: activity.source)
        XCTAssertEqual(minutes.count, 51)
        XCTAssertTrue(minutes.allSatisfy { $0.minute.start < instant("2024-05-03T00:00:00Z") })
    }
}
