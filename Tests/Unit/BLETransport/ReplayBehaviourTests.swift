import CaptureBluetooth
import Foundation
import TestSupport
import Transport
import XCTest

@testable import Transport
@testable import TransportReplay

/// The replay bearer and the client on small captures with one thing wrong, and on the real
/// treadmill capture made by another app.
final class ReplayBehaviourTests: XCTestCase {
    static let treadmill = Fixtures.url("ble/horizon-74-at-ble/btsnoop_hci.log")

    /// Primary services found, then the device refuses characteristic discovery in the second
    /// service: the error reaches the caller, named, with the pairing hint; nothing was retried.
    func testATTErrorInTheMiddleOfDiscovery() throws {
        let url = try CaptureScript(lines: [
            "> 100100ffff0028",
            "< 1106010005000d1806000a001f18",
            "> 100b00ffff0028",
            "< 01100b000a",
            "> 08010005000328",
            "< 09070200100300372a",
            "> 08030005000328",
            "< 010803000a",
            "> 0806000a000328",
            "< 01080600 05",
        ]).write()
        let client = ATTClient(bearer: try ReplayATTBearer(contentsOf: url))
        let services = try client.discoverPrimaryServices()
        XCTAssertEqual(services.map(\.uuid), [BluetoothUUID(0x180D), BluetoothUUID(0x181F)])
        XCTAssertEqual(try client.discoverCharacteristics(of: services[0]).map(\.valueHandle), [0x0003])
        XCTAssertThrowsError(try client.discoverCharacteristics(of: services[1])) { error in
            XCTAssertEqual(error as? BLEError, .attError(request: 0x08, handle: 0x0006, code: .insufficientAuthentication))
            XCTAssertEqual(
                "\(error)",
                "the device refused the Read By Type Request on handle 0x0006: Insufficient Authentication (0x05) — pair the "
                    + "device first (bluetoothctl pair ADDRESS) so the link can be encrypted")
        }
        XCTAssertThrowsError(try client.discoverAll(), "discoverAll stops at the same error") { error in
            XCTAssertEqual(
                error as? BLEError,
                .requestNotInCapture(
                    file: "script.btsnoop", pdu: hexBytes("100100ffff0028"), afterRecord: 10))
        }
    }

    /// When the capturing host repeated a refused request (it raised security), the replay
    /// lets the client do the same, and the retry's answer comes through.
    func testSecurityRetryFollowsTheCapture() throws {
        let url = try CaptureScript(lines: ["> 0a2500", "< 010a250005", "> 0a2500", "< 0b00900159c45c"]).write()
        let client = ATTClient(bearer: try ReplayATTBearer(contentsOf: url))
        XCTAssertEqual(try client.read(handle: 0x25).bytes, hexBytes("00900159c45c"))
    }

    /// A request the device never answered: the client reports a timeout naming the device and
    /// the request, and closes the link; every later call says why.
    func testUnansweredRequestTimesOut() throws {
        let url = try CaptureScript(lines: ["> 0a1500", "> 0a2500", "< 0b01"], disconnectReason: nil).write()
        let client = ATTClient(bearer: try ReplayATTBearer(contentsOf: url), requestTimeout: .seconds(30))
        XCTAssertThrowsError(try client.read(handle: 0x15)) { error in
            XCTAssertEqual(
                error as? BLEError,
                .timeout(device: "C0:11:22:33:44:55", request: "Read Request for handle 0x0015", seconds: 30))
            XCTAssertEqual(
                "\(error)",
                "the device C0:11:22:33:44:55 did not answer the Read Request for handle 0x0015 within 30 s; the connection was closed (move "
                    + "closer, or check that the device is on and not connected to a phone)")
        }
        XCTAssertThrowsError(try client.read(handle: 0x25)) { error in
            XCTAssertEqual("\(error)", "the Bluetooth connection ended: closed after the device left a request unanswered for 30 s")
        }
    }

    /// A driver asking what the capture never holds gets the PDU and the place named.
    func testRequestNotInCapture() throws {
        let url = try CaptureScript(lines: ["> 0a1500", "< 0b01"]).write(named: "hr.btsnoop")
        let client = ATTClient(bearer: try ReplayATTBearer(contentsOf: url))
        XCTAssertEqual(try client.read(handle: 0x15).bytes, [0x01])
        XCTAssertThrowsError(try client.read(handle: 0x16)) { error in
            XCTAssertEqual(
                "\(error)",
                "hr.btsnoop: the capture holds no Read Request 0A 16 00 after record 2 — the capture was made by a program that "
                    + "asked differently")
        }
    }

    /// A response with no request outstanding, and a malformed PDU from the device.
    func testProtocolViolationsFromTheDevice() throws {
        let stray = try CaptureScript(lines: ["< 0b01"]).write()
        XCTAssertThrowsError(try ATTClient(bearer: ReplayATTBearer(contentsOf: stray)).nextNotification(timeout: .seconds(1))) { error in
            XCTAssertEqual(
                error as? BLEError,
                .disconnected(
                    "the device disconnected (remote user terminated connection, script.btsnoop record 3)"),
                "an unpaired response is not served")
        }
        let broken = try CaptureScript(lines: ["> 0a1500", "< 1b12"]).write()
        let client = ATTClient(bearer: try ReplayATTBearer(contentsOf: broken))
        XCTAssertThrowsError(try client.read(handle: 0x15)) { error in
            XCTAssertEqual("\(error)", "malformed ATT PDU 1B 12: Handle Value Notification needs at least 2 parameter bytes, found 1")
        }
    }

    /// The device asks for an MTU exchange itself; the client answers with its own MTU.
    func testDeviceInitiatedMTUExchange() throws {
        let url = try CaptureScript(lines: ["< 02f700", "> 034100", "< 1b1200 0665"]).write()
        let client = ATTClient(bearer: try ReplayATTBearer(contentsOf: url), preferredMTU: 65)
        let note = try XCTUnwrap(client.nextNotification(timeout: .seconds(1)))
        XCTAssertEqual(note.value, [0x06, 0x65])
        XCTAssertEqual(client.mtu, 65)
    }

    /// The real treadmill capture, replayed to a client that discovers in BlueZ's order (the
    /// Android app went service by service and also looked for included services): services and
    /// characteristics come out as PROVENANCE.md lists them, then subscribing and writing what
    /// the app wrote yields the notifications per handle.
    func testTreadmillReplayDiscoversAndNotifies() throws {
        let bearer = try ReplayATTBearer(contentsOf: Self.treadmill)
        XCTAssertEqual(bearer.peer.address.description, "FA:E4:E3:24:20:09")
        XCTAssertEqual(bearer.peer.name, "HORIZON 7.4AT 55FD")
        let client = ATTClient(bearer: bearer)
        let database = try client.discoverAll()

        XCTAssertEqual(
            database.services.map { "\($0.uuid) \(handleText($0.startHandle))–\(handleText($0.endHandle))" },
            [
                "0x1801 0x0001–0x0001", "0x1800 0x0002–0x0008", "0xFFF0 0x0009–0x0019", "0x1826 0x001A–0x0050", "0xFEE7 0x0051–0x005C",
            ])
        let vendor = try XCTUnwrap(database.service(BluetoothUUID(0xFFF0)))
        XCTAssertEqual(
            vendor.characteristics.map { "\($0.uuid) \(handleText($0.valueHandle)) \(Hex.digits($0.properties.rawValue, count: 2))" },
            [
                "0xFFF1 0x000B 0A", "0xFFF2 0x000E 02", "0xFFF3 0x0011 08", "0xFFF4 0x0014 10", "0xFFF5 0x0018 02",
            ])
        let fff4 = try XCTUnwrap(vendor.characteristic(BluetoothUUID(0xFFF4)))
        XCTAssertEqual(fff4.cccd?.handle, 0x0015)
        // The device quirk: the attribute after FFF1's value reports UUID 0xFFF1 again.
        XCTAssertEqual(vendor.characteristics[0].descriptors, [GATTDescriptor(uuid: BluetoothUUID(0xFFF1), handle: 0x000C)])
        XCTAssertEqual(database.characteristics.count, 26)
        XCTAssertEqual(database.service(BluetoothUUID(0x1826))?.characteristics.count, 15)
        XCTAssertEqual(database.service(BluetoothUUID(0x1826))?.characteristic(BluetoothUUID(0x2ACD))?.cccd?.handle, 0x0024)

        try client.subscribe(fff4)
        let link = try XCTUnwrap(LECapture.read(contentsOf: Self.treadmill).connections.first)
        let appWrites = try link.att.compactMap { captured -> [UInt8]? in
            guard case .writeRequest(0x0011, let value) = try ATTPDU(bytes: captured.bytes) else { return nil }
            return value
        }
        XCTAssertEqual(appWrites.count, 260)

        var perHandle: [UInt16: Int] = [:]
        var first: GATTNotification?
        func drain() throws {
            while let note = try client.nextNotification(timeout: .seconds(1)) {
                first = first ?? note
                perHandle[note.handle, default: 0] += 1
            }
        }
        for value in appWrites {
            try drain()
            try client.write(value, handle: 0x0011)
        }
        XCTAssertThrowsError(try drain()) { error in
            XCTAssertEqual("\(error)", "the Bluetooth connection ended: the capture btsnoop_hci.log ends while the connection is still open")
        }
        XCTAssertEqual(perHandle, [0x0014: 786, 0x0012: 261])
        XCTAssertEqual(first?.value, [0x05, 0x02])
        XCTAssertEqual(SyntheticReplayTests.clock(first!.hostTime), "03:28:12.774733")
        // Only the app's five included-service searches were not repeated.
        XCTAssertEqual(bearer.progress, ReplayATTBearer.Progress(served: 1348, matched: 301, steppedOver: 5, total: 1659))
    }

    /// A driver that only listens: with `.followDevice` the app's writes are stepped over and
    /// every notification still arrives, in order, with its capture time.
    func testTreadmillListenerFollowsTheDevice() throws {
        let bearer = try ReplayATTBearer(contentsOf: Self.treadmill, pacing: .followDevice)
        let client = ATTClient(bearer: bearer)
        let database = try client.discoverAll()
        try client.subscribe(try XCTUnwrap(database.characteristic(BluetoothUUID(0xFFF4))))
        var count: [UInt16: Int] = [:]
        var last = Date.distantPast
        do {
            while let note = try client.nextNotification(timeout: .seconds(1)) {
                count[note.handle, default: 0] += 1
                XCTAssertGreaterThanOrEqual(note.hostTime, last)
                last = note.hostTime
            }
            XCTFail("a followed capture ends with a disconnection")
        } catch {
            XCTAssertEqual(error, .disconnected("the capture btsnoop_hci.log ends while the connection is still open"))
        }
        XCTAssertEqual(count, [0x0014: 786, 0x0012: 261])
        XCTAssertEqual(bearer.progress.steppedOver, 5 + 260)
    }

    func testNoConnectionInCapture() throws {
        let url = try CaptureScript(lines: []).write(named: "empty.btsnoop")
        XCTAssertThrowsError(try ReplayATTBearer(contentsOf: url)) { error in
            XCTAssertEqual(
                "\(error)",
                "empty.btsnoop: no LE connection carrying ATT in this capture (connections seen: C0:11:22:33:44:55 (handle 0x0040, 0 ATT PDUs))")
        }
        XCTAssertThrowsError(try ReplayATTBearer(contentsOf: Self.treadmill, address: BluetoothAddress("00:11:22:33:44:55"))) { error in
            XCTAssertTrue("\(error)".hasPrefix("btsnoop_hci.log: no LE connection to 00:11:22:33:44:55 carrying ATT"), "\(error)")
        }
        XCTAssertThrowsError(try ReplayATTBearer(contentsOf: URL(fileURLWithPath: "/nonexistent/a.btsnoop"))) { error in
            XCTAssertEqual("\(error)", "a.btsnoop: cannot read the file: No such file or directory")
        }
    }
}
