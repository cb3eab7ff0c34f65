import Drivers
import Foundation
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import Transport
import XCTest

/// The simulated Accu-Chek imported into a real store: a mmol/L meter's values and unit as it sent
/// them, its wall clock across the spring DST change with its clock error removed, nothing
/// stored from an import cut short, nothing twice.
final class AccuChekImportTests: XCTestCase {
    private func store() throws -> SharedStore {
        let folder = try Fixtures.temporaryDirectory()
        return try SharedStore(path: folder.appendingPathComponent("store.sqlite").path, timeZone: TimeZone(identifier: "Europe/Berlin")!)
    }

    /// A meter with `values` at the given wall times, its clock at `clock`, read when the host's
    /// clock is `host`.
    private func meter(
        _ unit: GlucoseUnit, _ values: [(PHDAbsoluteTime, UInt16)], clock: PHDAbsoluteTime, host: Date
    ) -> AccuChekMeterSimulator {
        let entries = values.enumerated().map { AccuChekEntry(position: Int64($0), time: $1.0, glucose: $1.1, status: 0) }
        return AccuChekMeterSimulator(serial: "92900000042", unit: unit, clock: clock, entries: entries, hostClock: { host })
    }

    private func importing(_ meter: AccuChekMeterSimulator, into store: SharedStore) throws -> GlucoseImport {
        let device = OpenedUSBDevice(meter, driver: AccuChekDriver.self, origin: "simulated accuchek")
        return try Importer(store: store).run(.usb(device), context: ImportContext()).devices[0].glucose[0]
    }

    /// Results on both sides of 2026-03-29 02:00 in Berlin, the meter's clock ten minutes fast:
    /// each is read in the offset of its own day, ten minutes earlier; a mmol/L meter's values
    /// keep their unit; a second import adds nothing.
    func testMillimolesAcrossDSTWithClockError() throws {
        let store = try store()
        let before = PHDAbsoluteTime(year: 2026, month: 3, day: 28, hour: 12, minute: 0, second: 0)
        let after = PHDAbsoluteTime(year: 2026, month: 3, day: 29, hour: 12, minute: 0, second: 0)
        let clock = PHDAbsoluteTime(year: 2026, month: 3, day: 29, hour: 13, minute: 10, second: 0)
        let host = Date(timeIntervalSince1970: TimeInterval(PHDAbsoluteTime(year: 2026, month: 3, day: 29, hour: 11, minute: 0, second: 0).seconds))
        let values = [
            (before, AccuChekMeterSimulator.sfloat(5.5, unit: .millimolesPerLiter)),
            (after, AccuChekMeterSimulator.sfloat(12.4, unit: .millimolesPerLiter)),
        ]
        let first = try importing(meter(.millimolesPerLiter, values, clock: clock, host: host), into: store)
        XCTAssertEqual(first.summary.added, 2)
        let rows = try store.glucose()
        XCTAssertEqual(rows.map(\.unit), [.millimolesPerLiter, .millimolesPerLiter])
        XCTAssertEqual(rows.map { ($0.mgdl / GlucoseUnit.mgdlPerMmol * 1000).rounded() / 1000 }, [5.5, 12.4])
        XCTAssertEqual(
            rows.map { Int64($0.time.timeIntervalSince1970) },
            [
                PHDAbsoluteTime(year: 2026, month: 3, day: 28, hour: 10, minute: 50, second: 0).seconds,
                PHDAbsoluteTime(year: 2026, month: 3, day: 29, hour: 9, minute: 50, second: 0).seconds,
            ])
        let again = try importing(meter(.millimolesPerLiter, values, clock: clock, host: host), into: store)
        XCTAssertEqual(again.summary.added, 0)
        XCTAssertEqual(try store.glucose().count, 2)
    }

    /// A meter unplugged in the middle of its transfer: the import fails naming it, stores and
    /// logs nothing; plugged in again, the next import stores every result.
    func testUnpluggedThenWhole() throws {
        let store = try store()
        let first = PHDAbsoluteTime(year: 2026, month: 3, day: 2, hour: 8, minute: 0, second: 0)
        let values = (0..<60).map { (PHDAbsoluteTime(seconds: first.seconds + Int64($0) * 7200), UInt16(70 + $0)) }
        let clock = PHDAbsoluteTime(seconds: first.seconds + 60 * 7200)
        let host = Date(timeIntervalSince1970: TimeInterval(clock.seconds - 3600))
        let unplugged = meter(.milligramsPerDeciliter, values, clock: clock, host: host)
        unplugged.unplugAfterReads = 6
        XCTAssertThrowsError(try importing(unplugged, into: store)) { error in
            XCTAssertTrue("\(error)".contains("unplugged"), "\(error)")
        }
        XCTAssertEqual(try store.glucose().count, 0)
        XCTAssertEqual(try store.importRuns(limit: 1), [])
        let whole = try importing(meter(.milligramsPerDeciliter, values, clock: clock, host: host), into: store)
        XCTAssertEqual(whole.summary.added, 60)
        XCTAssertEqual(try store.glucose().map(\.mgdl), (0..<60).map { Double(70 + $0) })
    }
}
