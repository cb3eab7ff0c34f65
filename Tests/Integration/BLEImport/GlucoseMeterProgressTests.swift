import Foundation
import ImportTestSupport
import Importer
import Simulators
import TestSupport
import XCTest

/// A Glucose Service meter's RACP download reports its records out of the count it answered.
extension GlucoseServiceImportTests {
    func testMeterDownloadReportsRecordsOfTheStoredCount() throws {
        let records: [(index: UInt16, values: [SimulatedPeripheral.Emission])] = (1...3).map { sequence in
            (
                UInt16(sequence),
                [
                    SimulatedPeripheral.Emission(
                        0x2A18, Self.meterMeasurement(flags: 0x03, sequence: UInt16(sequence), concentration: 0xB069, sample: 0x11))
                ]
            )
        }
        let reports = ProgressRecorder()
        let outcome = try Importer(store: try freshStore(zone: "Europe/Berlin"))
            .importOneBLE(over: meter(server: RACPServer(records)), origin: "simulated meter", progress: reports.reporter)
        XCTAssertEqual(outcome.problems, [])
        XCTAssertEqual(reports.items.map(\.0), Array(repeating: "Glucose records", count: 3))
        XCTAssertEqual(reports.items.map(\.1), [1, 2, 3])
        XCTAssertEqual(reports.items.map(\.2), [3, 3, 3])
    }
}
