import CaptureBluetooth
import Drivers
import Foundation
import Model
import Simulators
import TestSupport
import Transport
import TransportReplay
import XCTest

/// Simulated Bluetooth LE peripherals, read by glucobridge's session and recorded to btsnoop as
/// `import --ble --record` records a live session, replay through the real drivers over the
/// replay twin to exactly the values the peripherals were given.
final class BLESimulatorTests: XCTestCase {
    /// Records a session with `peripheral` to a btsnoop file, then replays that file: as
    /// glucobridge's own conversation, and passively as another program's capture.
    func recordAndReplay(_ peripheral: SimulatedPeripheral, clock: SimulatedClock) throws -> [BLESessionResult] {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("simulated.btsnoop")
        let recorder = try RecordingATTBearer(recording: peripheral, to: url, clock: { clock.now })
        _ = try BLESession.run(ATTClient(bearer: recorder), mode: .conversation, limits: .replay, context: .fresh)
        XCTAssertNil(recorder.recordingError)
        let capture = try LECapture.read(contentsOf: url)
        XCTAssertEqual(capture.attConnections.count, 1)
        let connection = try XCTUnwrap(capture.attConnections.first)
        return try [(ReplayATTBearer.Pacing.waitForClient, BLESessionMode.conversation), (.followDevice, .listenOnly)].map { pacing, mode in
            let bearer = ReplayATTBearer(
                connection: connection, file: capture.name, name: capture.localName(of: connection.peerAddress), pacing: pacing)
            return try BLESession.run(
                ATTClient(bearer: bearer), mode: mode, limits: .replay, context: .fresh,
                willListen: { bearer.pacing = .followDevice })
        }
    }

    /// The demo band: 3,000 heart-rate notifications, one a second, each decoded to the rate and
    /// host time the simulator sent it at, with the band's identity from Device Information.
    func testHeartRateBand() throws {
        let clock = SimulatedClock(HeartRateBandDemo.connected)
        for result in try recordAndReplay(HeartRateBandDemo.band(clock: clock), clock: clock) {
            XCTAssertEqual(result.identity.peer.address, HeartRateBandDemo.peer.address)
            XCTAssertEqual(result.identity.manufacturer, HeartRateBandDemo.manufacturer)
            XCTAssertEqual(result.identity.model, HeartRateBandDemo.model)
            XCTAssertEqual(result.identity.serial, HeartRateBandDemo.serial)
            XCTAssertEqual(result.reports.map(\.family), ["ble-hrs"])
            let samples = try XCTUnwrap(result.reports.first).samples
            XCTAssertEqual(samples.count, HeartRateBandDemo.seconds)
            XCTAssertEqual(
                samples.map(\.heartRate), (1...HeartRateBandDemo.seconds).map { Double?.some(Double(HeartRateBandDemo.beatsPerMinute(at: $0))) })
            XCTAssertEqual(samples.first?.heartRate, 69)
            XCTAssertEqual(samples.last?.heartRate, 79)
            XCTAssertEqual(samples.first?.time, HeartRateBandDemo.connected.addingTimeInterval(1))
            XCTAssertEqual(samples.last?.time, HeartRateBandDemo.connected.addingTimeInterval(TimeInterval(HeartRateBandDemo.seconds)))
            XCTAssertTrue(samples.allSatisfy { $0.skinContact == true })
        }
    }

    /// A CGM sensor whose session started 2024-01-15 07:00 at UTC+1: three live measurements
    /// (SFLOAT mg/dL, minutes since the session start, E2E-CRC) decode to their values and
    /// offsets, timed from the Session Start Time.
    func testContinuousGlucoseSensor() throws {
        let sessionStart = Date(timeIntervalSince1970: 1_705_298_400)  // 2024-01-15T06:00:00Z
        let clock = SimulatedClock(sessionStart.addingTimeInterval(90 * 60 + 30))
        func record(_ glucose: UInt16, offset: UInt16) -> [UInt8] {
            E2ECRC.appending(to: [8, 0x00, UInt8(glucose & 0xFF), UInt8(glucose >> 8), UInt8(offset & 0xFF), UInt8(offset >> 8)])
        }
        let given: [(value: UInt16, offset: UInt16)] = [(110, 91), (121, 92), (95, 93)]
        let startTime = CGMSessionStartTime(
            localTime: GATTDateTime(year: 2024, month: 1, day: 15, hours: 7, minutes: 0, seconds: 0), timeZoneQuarterHours: 4,
            dstOffset: .standardTime)
        let sensor = SimulatedPeripheral(
            peer: BLEPeer(address: BluetoothAddress("C0:FF:EE:00:00:07")!, addressType: .random, name: "SimCGM"),
            services: [
                .init(
                    0x181F,
                    [
                        .init(0x2AA7, .notify), .init(0x2AA8, .read, value: E2ECRC.appending(to: [0x00, 0x10, 0x00, 0x59])),
                        .init(0x2AA9, .read, value: E2ECRC.appending(to: [90, 0, 0, 0, 0])),
                        .init(0x2AAA, [.read, .write], value: startTime.encoded(withCRC: true)), .init(0x2A52, [.write, .indicate]),
                    ])
            ],
            schedule: given.map {
                .init(at: sessionStart.addingTimeInterval(TimeInterval($0.offset) * 60), 0x2AA7, record($0.value, offset: $0.offset))
            },
            clock: clock)
        // No stored records: the count request is answered 0, a report request "no records found".
        sensor.controlPoints[BluetoothUUID(0x2A52)] = { request -> [SimulatedPeripheral.Emission] in
            switch request.first {
            case 0x04: [.init(0x2A52, [0x05, 0x00, 0x00, 0x00], indication: true)]
            case let opCode?: [.init(0x2A52, [0x06, 0x00, opCode, 0x06], indication: true)]
            case nil: []
            }
        }
        for result in try recordAndReplay(sensor, clock: clock) {
            XCTAssertEqual(result.reports.map(\.family), ["ble-cgms"])
            let download = try XCTUnwrap(result.reports.first?.glucose)
            XCTAssertEqual(download.source.family, "ble-cgms")
            XCTAssertEqual(download.source.serial, "C0:FF:EE:00:00:07", "no Device Information: the address")
            XCTAssertEqual(download.clock.epoch, sessionStart)
            XCTAssertEqual(download.glucose.map(\.value), given.map { Double($0.value) })
            XCTAssertEqual(download.glucose.map(\.deviceSeconds), given.map { Int64($0.offset) * 60 })
            XCTAssertTrue(download.glucose.allSatisfy { $0.unit == .milligramsPerDeciliter && $0.kind == .sensor })
            XCTAssertEqual(download.events, [])
        }
    }
}
