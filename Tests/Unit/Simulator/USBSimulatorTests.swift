import CaptureUSB
import Drivers
import Foundation
import Model
import Pipeline
import Simulators
import TestSupport
import Transport
import TransportReplay
import XCTest

/// Each USB simulator's bytes, recorded to a usbmon pcap as `import --record` records a live
/// session, decode through the real driver over the replay twin (conversation replay, and the
/// passive decode of another program's capture) to exactly the values the simulator was given.
final class USBSimulatorTests: XCTestCase {
    /// Records `simulator` read by `driver` to a pcap, then reads that file back: the one device
    /// in it, replayed to the driver and decoded passively.
    func recordAndReplay(
        _ simulator: any USBTransport, driver: any USBDeviceDriver.Type, clock: @escaping () -> Date
    ) throws -> (conversation: GlucoseDownload, passive: GlucoseDownload) {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("simulated.pcap")
        let recorder = try RecordingUSBTransport(recording: simulator, to: url, clock: clock)
        _ = try driver.session(over: recorder, context: .fresh)
        try recorder.finish()
        let devices = RecordedUSBDevice.devices(in: try USBCaptureReader.read(contentsOf: url)).filter(\.hasDataTransfers)
        XCTAssertEqual(devices.count, 1)
        let device = try XCTUnwrap(devices.first)
        XCTAssertEqual(
            DriverRegistry.usbDriver(vendorID: device.description.vendorID, productID: device.description.productID)?.family, driver.family,
            "the recorded descriptors name the simulated product")
        let conversation = try XCTUnwrap(try driver.session(over: ReplayUSBTransport(device, deadline: nil), context: .fresh).glucose)
        return (conversation, try XCTUnwrap(try driver.session(recorded: device, context: .fresh).glucose))
    }

    /// A clock advancing 1 ms at each reading, from `start`.
    func ticking(from start: Date) -> () -> Date {
        var tick = 0.0
        return {
            tick += 0.001
            return start.addingTimeInterval(tick)
        }
    }

    /// `YYYYMMDDhhmm` of a wall clock counted from `epoch` (read as UTC, as the drivers count it).
    func wallClock(_ seconds: Int64, from epoch: Date, format: String = "yyyyMMddHHmm") -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter.string(from: epoch.addingTimeInterval(TimeInterval(seconds)))
    }

    // MARK: Dexcom

    /// 45 EGV records over two G4 pages (38 + 7), one of them the special value 5: 44 readings
    /// with the simulator's values, system times, display offset and trends.
    func testDexcomReceiver() throws {
        let lastSystem: UInt32 = 470_000_000
        var given: [(systemSeconds: UInt32, glucose: UInt16, trendByte: UInt8)] = []
        for i in 0..<45 {
            let glucose: UInt16 = i == 20 ? 5 : UInt16(40 + (i * 37) % 361)
            let trendByte: UInt8 = 0x10 | UInt8(1 + i % 7)
            given.append((lastSystem - UInt32(44 - i) * 300, glucose, trendByte))
        }
        let pages = DexcomPageBuilder.egvPages(given, displayOffset: -3_600)
        XCTAssertEqual(pages.count, 2)
        let clock = ticking(from: Date(timeIntervalSince1970: TimeInterval(dexcomEpochOffsetFrom1970) + TimeInterval(lastSystem) + 90))
        let receiver = DexcomReceiverSimulator(
            pages: [
                DexcomPartition.manufacturingData.rawValue: [0: DexcomPageBuilder.manufacturingPage(serial: "SM00SIM01", systemSeconds: 1)],
                DexcomPartition.egvData.rawValue: pages,
            ],
            systemTime: lastSystem + 60, displayTimeOffset: -3_600, hostClock: clock)

        let (conversation, passive) = try recordAndReplay(receiver, driver: DexcomDriver.self, clock: clock)
        for download in [conversation, passive] {
            XCTAssertEqual(download.source, DeviceSource(family: "dexcom", serial: "SM00SIM01", model: "G4Receiver"))
            XCTAssertEqual(download.recordsRead, 45)
            XCTAssertEqual(download.events, [ImportEvent(name: "SENSOR_NOT_CALIBRATED", count: 1)])
            XCTAssertEqual(download.cursors, ["egv": 44])
            let readings = download.glucose
            XCTAssertEqual(readings.count, 44)
            let kept: [Int] = (0..<45).filter { $0 != 20 }
            XCTAssertEqual(readings.map { $0.index }, kept.map { Int64($0) })
            XCTAssertEqual(readings.map { $0.value }, kept.map { Double(given[$0].glucose) })
            XCTAssertEqual(readings.map { $0.deviceSeconds }, kept.map { Int64(given[$0].systemSeconds) })
            XCTAssertEqual(readings.map { $0.displaySeconds }, kept.map { Int64?.some(Int64(given[$0].systemSeconds) - 3_600) })
            // Trend codes 1…7, Dexcom's DoubleUp … DoubleDown.
            let trends: [Trend] = [.doubleUp, .singleUp, .fortyFiveUp, .flat, .fortyFiveDown, .singleDown, .doubleDown]
            XCTAssertEqual(readings.map { $0.trend }, kept.map { Trend?.some(trends[Int(given[$0].trendByte & 0x0F) - 1]) })
            XCTAssertEqual(readings.first?.value, 40)
            XCTAssertEqual(readings.first?.trend, .doubleUp)
            XCTAssertEqual(readings.last?.value, Double(40 + (44 * 37) % 361))
            XCTAssertEqual(readings.last?.deviceSeconds, Int64(lastSystem))
            XCTAssertEqual(Set(readings.map { $0.unit }), [.milligramsPerDeciliter])
            XCTAssertEqual(Set(readings.map { $0.kind }), [.sensor])
            XCTAssertEqual(Set(readings.map { $0.noise }), [1])
            XCTAssertEqual(download.clock.deviceNow, Int64(lastSystem + 60))
        }
        XCTAssertNotNil(conversation.clock.hostNow, "the recorded replies carry the host's clock")
    }

    // MARK: Contour

    /// A meter in mg/dL and one in mmol/L: every result's value, unit, time and markers.
    func testContourMeter() throws {
        let host = Date(timeIntervalSince1970: 1_773_136_800)  // 2026-03-10T10:00:00Z
        for (unit, results, values) in [
            (
                0,
                [
                    "R|1|^^^Glucose|99|mg/dL^P||B||202603090715", "R|2|^^^Glucose|181|mg/dL^P||A||202603091230",
                    "R|3|^^^Glucose|54|mg/dL^P||||202603100905",
                ], [99.0, 181, 54]
            ),
            (1, ["R|1|^^^Glucose|3.8|mmol/L^P||||202603090715", "R|2|^^^Glucose|10.1|mmol/L^P||||202603100905"], [3.8, 10.1]),
        ] {
            let clock = ticking(from: host)
            let meter = ContourMeterSimulator(serial: "7390-0000009", unit: unit, clock: "202603101000", results: results, hostClock: clock)
            let (conversation, passive) = try recordAndReplay(meter, driver: ContourDriver.self, clock: clock)
            for download in [conversation, passive] {
                XCTAssertEqual(download.source.family, "contour")
                XCTAssertEqual(download.source.serial, "7390-0000009")
                XCTAssertEqual(download.glucose.map(\.value), values)
                XCTAssertEqual(download.glucose.map(\.index), Array(1...Int64(values.count)))
                XCTAssertEqual(
                    download.glucose.map(\.unit),
                    Array(repeating: unit == 0 ? GlucoseUnit.milligramsPerDeciliter : .millimolesPerLiter, count: values.count))
                XCTAssertEqual(download.glucose.map(\.kind), Array(repeating: ReadingKind.fingerstick, count: values.count))
                XCTAssertEqual(
                    download.glucose.map { wallClock($0.deviceSeconds, from: download.clock.epoch) },
                    results.map { String($0.split(separator: "|").last!) })
                XCTAssertEqual(download.clock.basis, .localWallClock)
                XCTAssertEqual(download.clock.deviceNow.map { wallClock($0, from: download.clock.epoch) }, "202603101000")
            }
            if unit == 0 {
                XCTAssertEqual(conversation.glucose.map(\.note), ["before meal", "after meal", nil])
            }
        }
    }

    // MARK: FreeStyle

    /// A Libre reader: its `$history?` sensor readings and `$arresult?` strips, the row flagged
    /// invalid counted, not read.
    func testFreeStyleReader() throws {
        let clock = ticking(from: Date(timeIntervalSince1970: 1_741_941_120))
        let reader = FreeStyleReaderSimulator(
            productID: 0x3650, outEndpoint: false, serial: "JCMV000-S0009", softwareVersion: "2.3.2", date: "3,14,25", time: "9,30",
            records: [
                "$history?": [
                    "303,12,3,14,25,9,16,5,1,0,0,0,0,112,7246,0",
                    "302,12,3,14,25,9,1,5,1,0,0,0,0,0,7231,32768",
                    "301,12,3,14,25,8,46,5,1,0,0,0,0,131,7216,0",
                ],
                "$arresult?": [
                    "1101,2,3,14,25,7,55,12,1,0,0,0,96,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\"\",\"\",\"\",\"\",\"\",\"\""
                ],
            ],
            hostClock: clock)
        let (conversation, passive) = try recordAndReplay(reader, driver: FreeStyleDriver.self, clock: clock)
        for download in [conversation, passive] {
            XCTAssertEqual(download.source.family, "freestyle")
            XCTAssertEqual(download.source.serial, "JCMV000-S0009")
            let readings = download.glucose.sorted { ($0.stream, $0.index) < ($1.stream, $1.index) }
            XCTAssertEqual(readings.map(\.recordKey), ["arresult:1101", "history:301", "history:303"])
            XCTAssertEqual(readings.map(\.value), [96, 131, 112])
            XCTAssertEqual(readings.map(\.kind), [.fingerstick, .sensor, .sensor])
            XCTAssertTrue(readings.allSatisfy { $0.unit == .milligramsPerDeciliter })
            XCTAssertEqual(
                readings.map { wallClock($0.deviceSeconds, from: download.clock.epoch, format: "yyyy-MM-dd HH:mm:ss") },
                ["2025-03-14 07:55:12", "2025-03-14 08:46:05", "2025-03-14 09:16:05"])
            XCTAssertEqual(download.clock.deviceNow.map { wallClock($0, from: download.clock.epoch) }, "202503140930")
            XCTAssertEqual(download.events.map(\.count), [1], "the invalid row, \(download.events)")
            XCTAssertTrue(download.events.first?.name.hasSuffix("flagged-invalid") ?? false, "\(download.events)")
            XCTAssertEqual(download.cursors["history"], 303)
            XCTAssertEqual(download.cursors["arresult"], 1101)
        }
    }
}
