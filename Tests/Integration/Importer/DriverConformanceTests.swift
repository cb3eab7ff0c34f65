import Drivers
import Foundation
import ImportTestSupport
import Model
import Simulators
import TestSupport
import Transport
import XCTest

/// Every registered USB driver through the conformance kit's steps (see `DriverConformanceKit`).
final class DriverConformanceTests: XCTestCase {
    /// The families the kit checks: a driver is registered here with a simulated device.
    static var families: [any ConformingUSBFamily.Type] {
        [DexcomFamily.self, FreeStyleFamily.self, ContourFamily.self, AccuChekFamily.self, VerioFamily.self]
    }

    func testEveryRegisteredDriverHasAFamily() {
        XCTAssertEqual(
            Set(DriverRegistry.usb.map { $0.family }), Set(Self.families.map { $0.driver.family }),
            "every driver in DriverRegistry.usb is registered with the conformance kit")
    }

    /// Every family in the registry, through the contract's coordinator checks, with the
    /// evidence a real device of it shows.
    func testEveryFamilyCoordinator() throws {
        let fit = try Data(contentsOf: Fixtures.url("fit/garmin-edge-820-bike.fit"))
        let samples: [DeviceFamily: DeviceEvidence] = [
            "dexcom": .usb(vendorID: 0x22A3, productID: 0x0047), "contour": .usb(vendorID: 0x1A79, productID: 0x7410),
            "freestyle": .usb(vendorID: 0x1A61, productID: 0x3650), "accuchek": .usb(vendorID: 0x173A, productID: 0x21D5),
            "verio": .usb(vendorID: 0x2766, productID: 0x000C),
            "ble-hrs": .gattServices([BluetoothUUID(0x1800), BluetoothUUID(0x180D)]), "ble-rsc": .gattServices([BluetoothUUID(0x1814)]),
            "ble-csc": .gattServices([BluetoothUUID(0x1816)]), "ble-ftms": .gattServices([BluetoothUUID(0x1826)]),
            "huami": .gattServices([BluetoothUUID(0xFEE0)]),
            "infinitime": .gattServices([BluetoothUUID("00030000-78fc-48fe-8e23-433b3a1942d0")!]),
            "ble-cgms": .gattServices([BluetoothUUID(0x181F)]), "ble-glucose": .gattServices([BluetoothUUID(0x1808)]),
            "fit": .fileHead(Array(fit.prefix(DriverRegistry.fileHeadLength))),
        ]
        XCTAssertEqual(Set(DriverRegistry.families.map { $0.family }), Set(samples.keys), "every registered family has a sample here")
        XCTAssertEqual(
            DriverRegistry.families.count, Set(DriverRegistry.families.map { $0.family }).count, "no two families share a name")
        for coordinator in DriverRegistry.families {
            guard let sample = samples[coordinator.family] else { continue }
            DriverConformanceKit.checkCoordinator(coordinator, sample: sample)
        }
    }

    func testDexcom() throws { try DriverConformanceKit.check(DexcomFamily.self) }
    func testFreeStyle() throws { try DriverConformanceKit.check(FreeStyleFamily.self) }
    func testContour() throws { try DriverConformanceKit.check(ContourFamily.self) }
    func testAccuChek() throws { try DriverConformanceKit.check(AccuChekFamily.self) }
    func testVerio() throws { try DriverConformanceKit.check(VerioFamily.self) }
}

/// A clock that moves on by a millisecond each time it is read, from `start`.
private func ticking(from start: Date) -> () -> Date {
    var tick = 0.0
    return {
        tick += 0.001
        return start.addingTimeInterval(tick)
    }
}

/// A Dexcom G4 receiver holding two Days of the generated history, then three hours more.
enum DexcomFamily: ConformingUSBFamily {
    static let driver: any USBDeviceDriver.Type = DexcomDriver.self
    static let labScenario: String? = "dexcom-live"
    /// Pages are read back to the one holding the cursor; the older records on it are read again.
    static let oldRecordsReadAgain = 37

    static func simulator(step: Int) -> any USBTransport {
        let count = 2 * 288 + step * 36
        let first: UInt32 = 560_000_000
        let readings = (0..<count).compactMap { i -> (systemSeconds: UInt32, glucose: UInt16, trendByte: UInt8)? in
            GeneratedHistory.glucose(at: i).map { (first + UInt32(i) * 300, UInt16($0), 0x14) }
        }
        let systemNow = first + UInt32(count - 1) * 300 + 60
        let host = Date(timeIntervalSince1970: TimeInterval(dexcomEpochOffsetFrom1970) + TimeInterval(systemNow))
        return DexcomReceiverSimulator(
            pages: [
                DexcomPartition.manufacturingData.rawValue: [0: DexcomPageBuilder.manufacturingPage(serial: "SM00KIT01", systemSeconds: 1)],
                DexcomPartition.egvData.rawValue: DexcomPageBuilder.egvPages(readings, displayOffset: -25_200),
            ],
            systemTime: systemNow, displayTimeOffset: -25_200, hostClock: ticking(from: host))
    }
}

/// The demo FreeStyle Libre reader without its newest rows, then with them.
enum FreeStyleFamily: ConformingUSBFamily {
    static let driver: any USBDeviceDriver.Type = FreeStyleDriver.self
    static let labScenario: String? = "freestyle-live"
    /// The reader sends every record; the driver drops those at or below the cursors.
    static let oldRecordsReadAgain = 0

    static func simulator(step: Int) -> any USBTransport {
        let newest = step == 0 ? 1 : 0
        return FreeStyleReaderSimulator(
            productID: 0x3650, outEndpoint: false, serial: FreeStyleDemo.serial, softwareVersion: "2.3.2", date: FreeStyleDemo.date,
            time: FreeStyleDemo.time,
            records: ["$history?": Array(FreeStyleDemo.history.dropFirst(newest)), "$arresult?": Array(FreeStyleDemo.arresult.dropFirst(newest))],
            hostClock: ticking(from: FreeStyleDemo.hostStart))
    }
}

/// A Contour meter with three results, then a fourth.
enum ContourFamily: ConformingUSBFamily {
    static let driver: any USBDeviceDriver.Type = ContourDriver.self
    static let labScenario: String? = "contour-live"
    /// The meter sends its whole memory in every transfer (ASTM E1381 has no query).
    static let oldRecordsReadAgain = 3

    static func simulator(step: Int) -> any USBTransport {
        let results = [
            "R|1|^^^Glucose|99|mg/dL^P||B||202603090715", "R|2|^^^Glucose|181|mg/dL^P||A||202603091230",
            "R|3|^^^Glucose|54|mg/dL^P||||202603100905", "R|4|^^^Glucose|70|mg/dL^P||||202603100945",
        ]
        return ContourMeterSimulator(
            serial: "7390-0000042", unit: 0, clock: "202603101000", results: Array(results.prefix(3 + step)),
            hostClock: ticking(from: Date(timeIntervalSince1970: 1_773_136_800)))
    }
}

/// An Accu-Chek Guide with 30 results over four days (a HI, a LO and a control result among
/// them), then two more.
enum AccuChekFamily: ConformingUSBFamily {
    static let driver: any USBDeviceDriver.Type = AccuChekDriver.self
    static let labScenario: String? = "accuchek-live"
    /// The meter sends its whole PM-store segment in every transfer (MDC_ACT_SEG_TRIG_XFER has no
    /// starting point).
    static let oldRecordsReadAgain = 30

    static func simulator(step: Int) -> any USBTransport {
        let first = PHDAbsoluteTime(year: 2026, month: 3, day: 6, hour: 7, minute: 5, second: 12)
        let entries = (0..<(30 + 2 * step)).map { i in
            let value: UInt16 =
                i == 7
                ? AccuChekMeterSimulator.high
                : i == 19
                    ? AccuChekMeterSimulator.low
                    : UInt16(GeneratedHistory.glucose(at: i * 7) ?? 100)
            return AccuChekEntry(
                position: Int64(i), time: PHDAbsoluteTime(seconds: first.seconds + Int64(i) * 11_000), glucose: value,
                status: i == 12 ? AccuChekEntry.testData : 0)
        }
        let clock = PHDAbsoluteTime(seconds: entries.last!.time.seconds + 1800)
        return AccuChekMeterSimulator(
            serial: "92912345678", unit: .milligramsPerDeciliter, clock: clock, entries: entries,
            hostClock: ticking(from: Date(timeIntervalSince1970: TimeInterval(clock.seconds - 3600 + 45))))
    }
}

/// A OneTouch Verio Reflect with 30 records three hours apart (a HI, a LO and a control result
/// among them), then two more.
enum VerioFamily: ConformingUSBFamily {
    static let driver: any USBDeviceDriver.Type = VerioDriver.self
    static let labScenario: String? = "verio-live"
    /// The host reads from the newest record down to the newest one stored, which it reads again.
    static let oldRecordsReadAgain = 1

    static func simulator(step: Int) -> any USBTransport {
        // 2026-03-09 07:15:00 in the meter's seconds since 2000-01-01, for the first history.
        let newest = UInt32(826_355_700 + step * 2 * 10_800)
        let count = 30 + 2 * step
        let values = (0..<count).map { i in
            let age = count - 1 - i
            return age == 7 ? UInt16(600) : age == 19 ? 20 : UInt16(GeneratedHistory.glucose(at: age * 7) ?? 100)
        }
        let records = VerioMeter.history(count: count, newest: newest, values: values, flags: [count - 1 - 12: VerioRecord.controlSolution])
        let meter = VerioMeter(serial: "RPT1234ABC", model: "OneTouch Verio Reflect", clock: newest + 1800, records: records)
        let host = Date(timeIntervalSince1970: TimeInterval(Int64(newest) + 946_684_800 + 1800 + 45))
        return VerioMeterSimulator(meter: meter, productID: 0x000C, hostClock: ticking(from: host))
    }
}

/// Every registered Bluetooth LE service through the conformance kit's steps, on the simulated
/// devices that serve them.
final class BluetoothDriverConformanceTests: XCTestCase {
    static var devices: [any ConformingBLEDevice.Type] {
        [
            HeartRateBandDevice.self, CGMSensorDevice.self, GlucoseMeterDevice.self, RunningPodDevice.self, BikeSensorDevice.self,
            TreadmillDevice.self, HuamiBandDevice.self, PineTimeDevice.self,
        ]
    }

    func testEveryRegisteredServiceIsServed() {
        XCTAssertEqual(
            Set(DriverRegistry.ble.map { $0.family }), Set(Self.devices.flatMap { $0.families }),
            "every driver in DriverRegistry.ble is served by a device registered with the conformance kit")
    }

    func testHeartRateBand() throws { try DriverConformanceKit.check(HeartRateBandDevice.self) }
    func testCGMSensor() throws { try DriverConformanceKit.check(CGMSensorDevice.self) }
    func testGlucoseMeter() throws { try DriverConformanceKit.check(GlucoseMeterDevice.self) }
    func testRunningPod() throws { try DriverConformanceKit.check(RunningPodDevice.self) }
    func testBikeSensor() throws { try DriverConformanceKit.check(BikeSensorDevice.self) }
    func testTreadmill() throws { try DriverConformanceKit.check(TreadmillDevice.self) }
    func testHuamiBand() throws { try DriverConformanceKit.check(HuamiBandDevice.self) }
    func testPineTime() throws { try DriverConformanceKit.check(PineTimeDevice.self) }
}

/// The simulated PineTime: its count read at 14:00:05 on the watch and step notifications to
/// 12:03:50Z, then the same session on to 12:05:50Z (each ending with the last read of a minute).
enum PineTimeDevice: ConformingBLEDevice {
    static let families: [DeviceFamily] = ["ble-hrs", InfiniTimeDriver.family]
    static let labScenario: String? = "pinetime-live"

    static func peripheral(step: Int) -> (bearer: any ATTBearer, clock: () -> Date) {
        let clock = SimulatedClock(PineTimeDemo.connected)
        return (PineTimeDemo.watch(notifications: 11 + 6 * step).peripheral(connected: PineTimeDemo.connected, clock: clock), { clock.now })
    }
}

/// The simulated Huami band: four hours of per-minute history through the night clocks go
/// forward (30 March 23:00Z to 31 March 03:00Z), then two hours more, an hour a fetch (the kit cuts
/// the recording after each record, so the history is short; HuamiBandImportTests has the days);
/// its auth key made for this test run and supplied to the driver.
enum HuamiBandDevice: ConformingBLEDevice {
    static let families = [HuamiBandDriver.family]
    static let labScenario: String? = nil
    static let key = (0..<16).map { _ in UInt8.random(in: 0...255) }

    static func peripheral(step: Int) -> (bearer: any ATTBearer, clock: () -> Date) {
        HuamiAuthKeys.supply(key, for: HuamiBandDemo.peer.address)
        let end = 3120 + 120 * step
        let clock = SimulatedClock(HuamiBandDemo.connected(afterMinute: end))
        let band = HuamiBandDemo.band(minutes: 2880..<end, key: key)
        band.minutesPerFetch = 60
        return (band.peripheral(clock: clock), { clock.now })
    }
}

/// The simulated heart-rate band: 4 whole minutes of its session, then 6 (see the closing note of
/// issue 24 on a session that ends inside a minute).
enum HeartRateBandDevice: ConformingBLEDevice {
    static let families: [DeviceFamily] = ["ble-hrs"]
    static let labScenario: String? = "ble-heart-rate"

    static func peripheral(step: Int) -> (bearer: any ATTBearer, clock: () -> Date) {
        let clock = SimulatedClock(HeartRateBandDemo.connected)
        return (HeartRateBandDemo.band(clock: clock, seconds: 239 + 120 * step), { clock.now })
    }
}

/// The simulated CGM: six stored readings on the consensus edges, then two more.
enum CGMSensorDevice: ConformingBLEDevice {
    static let families: [DeviceFamily] = ["ble-cgms"]
    static let labScenario: String? = "ble-cgm-live"

    static func peripheral(step: Int) -> (bearer: any ATTBearer, clock: () -> Date) {
        let clock = SimulatedClock(ContinuousGlucoseSensorDemo.connected)
        let tenths = [539, 540, 699, 700, 1800, 1801, 2045, 997]
        return (ContinuousGlucoseSensorDemo.sensor(tenths: Array(tenths.prefix(6 + 2 * step)), clock: clock), { clock.now })
    }
}

/// The simulated Glucose-service meter: its first eight results, then all twelve.
enum GlucoseMeterDevice: ConformingBLEDevice {
    static let families: [DeviceFamily] = ["ble-glucose"]
    static let labScenario: String? = "ble-meter-sport"

    static func peripheral(step: Int) -> (bearer: any ATTBearer, clock: () -> Date) {
        let clock = SimulatedClock(Date(timeIntervalSince1970: 1_712_000_000))
        let results = GlucoseMeterDemo.results.prefix(8 + 4 * step)
        let server = RACPServer(results.map { ($0.sequence, GlucoseMeterDemo.values(of: $0)) })
        return (GlucoseMeterDemo.meter(server: server, clock: clock), { clock.now })
    }
}

/// A sport sensor notifying once a second: 2 minutes, then 3.
protocol SportSensorDevice: ConformingBLEDevice {
    static var sensor: SportSensorDemo.Sensor { get }
}

extension SportSensorDevice {
    static func peripheral(step: Int) -> (bearer: any ATTBearer, clock: () -> Date) {
        let start = Date(timeIntervalSince1970: 1_714_629_300)
        let clock = SimulatedClock(start)
        return (SportSensorDemo.device(sensor, seconds: 120 + 60 * step, start: start, clock: clock), { clock.now })
    }
}

enum RunningPodDevice: SportSensorDevice {
    static let families: [DeviceFamily] = ["ble-rsc"]
    static let labScenario: String? = "ble-meter-sport"
    static let sensor = SportSensorDemo.Sensor.runningPod
}

enum BikeSensorDevice: SportSensorDevice {
    static let families: [DeviceFamily] = ["ble-csc"]
    static let labScenario: String? = "ble-meter-sport"
    static let sensor = SportSensorDemo.Sensor.bike
}

enum TreadmillDevice: SportSensorDevice {
    static let families: [DeviceFamily] = ["ble-ftms"]
    static let labScenario: String? = "ble-meter-sport"
    static let sensor = SportSensorDemo.Sensor.treadmill
}
