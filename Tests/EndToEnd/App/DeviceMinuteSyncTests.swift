import Drivers
import Foundation
import ImportTestSupport
import Importer
import Simulators
import Store
import Sync
import TestSupport
import Transport
import XCTest

/// A Huami band's own kind and intensity bytes reach the central PostgreSQL server as the store
/// holds them (issue 34): a day of the simulated band imported, then synced.
final class DeviceMinuteSyncTests: XCTestCase {
    func testTheBandsKindAndIntensityReachTheServerAsStored() async throws {
        let database = try await TestDatabase()
        let key = (0..<16).map { _ in UInt8.random(in: 0...255) }
        HuamiAuthKeys.supply(key, for: HuamiBandDemo.peer.address)
        let local = try TestStore()
        let clock = SimulatedClock(HuamiBandDemo.connected(days: 1))
        let peripheral = HuamiBandDemo.band(days: 1, key: key).peripheral(clock: clock)
        _ = try Importer(store: local.store).run(
            .bluetooth(ConnectedPeer(peripheral, origin: "simulated band")),
            context: ImportContext(recordTo: nil, recordingClock: { clock.now }, limits: .replay))

        let report = try await database.sync(local.store, patient: "p-band")
        XCTAssertEqual(report.written["activity_minute"], 1440)
        let server = try await database.rows(
            """
            SELECT to_char(minute AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || '|' || device_activity_kind || '|' || device_intensity
            FROM activity_minute WHERE patient_id = 'p-band' ORDER BY minute
            """
        ).map { $0[0] }
        let stored = try local.sqlite3(
            "SELECT substr(minute, 1, 16) || '|' || device_activity_kind || '|' || device_intensity FROM activity_minute ORDER BY minute;"
        ).split(separator: "\n").map(String.init)
        XCTAssertEqual(server, stored)
        // 29 March 07:30 CET, 06:30Z: minute 450 of the history, the walk: kind 0x01, intensity 60 + 450 mod 7.
        XCTAssertTrue(server.contains("2024-03-29 06:30|1|62"), "\(server.prefix(3))")
        await database.drop()
    }
}
