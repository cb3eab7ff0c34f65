import CaptureBluetooth
import Foundation
import TestSupport
import Transport
import XCTest

@testable import Transport
@testable import TransportReplay

/// A driver-shaped script runs against the synthetic Heart Rate + CGM captures through
/// `ATTClient` over `ReplayATTBearer`; what it sees must be the wire-level facts of
/// fixtures/ble/synthetic/EXPECTED.md, identical for the 1002 and the 2001 file.
final class SyntheticReplayTests: XCTestCase {
    static let files = [
        Fixtures.url("ble/synthetic/synthetic-hrs-cgms-android-h4.btsnoop"),
        Fixtures.url("ble/synthetic/synthetic-hrs-cgms-btmon-monitor.btsnoop"),
    ]

    func testDiscoveryMatchesExpected() throws {
        for url in Self.files {
            let client = ATTClient(bearer: try ReplayATTBearer(contentsOf: url))
            XCTAssertEqual(client.peer, BLEPeer(address: BluetoothAddress("C0:11:22:33:44:55")!, addressType: .random, name: "SynBand"))
            XCTAssertEqual(client.peer.description, "SynBand (C0:11:22:33:44:55, random)")
            XCTAssertEqual(try client.exchangeMTU(preferred: 65), 65)
            XCTAssertEqual(client.mtu, 65)
            let database = try client.discoverAll()

            XCTAssertEqual(database.services.map(\.uuid), [BluetoothUUID(0x180D), BluetoothUUID(0x181F)])
            let hrs = try XCTUnwrap(database.service(BluetoothUUID(0x180D)))
            XCTAssertEqual([hrs.startHandle, hrs.endHandle], [0x0010, 0x0017])
            XCTAssertEqual(
                hrs.characteristics,
                [
                    GATTCharacteristic(
                        uuid: BluetoothUUID(0x2A37), declarationHandle: 0x11, valueHandle: 0x12, properties: .notify, endHandle: 0x13,
                        descriptors: [GATTDescriptor(uuid: .clientCharacteristicConfiguration, handle: 0x13)]),
                    GATTCharacteristic(uuid: BluetoothUUID(0x2A38), declarationHandle: 0x14, valueHandle: 0x15, properties: .read, endHandle: 0x15),
                    GATTCharacteristic(uuid: BluetoothUUID(0x2A39), declarationHandle: 0x16, valueHandle: 0x17, properties: .write, endHandle: 0x17),
                ])
            let cgms = try XCTUnwrap(database.service(BluetoothUUID(0x181F)))
            XCTAssertEqual([cgms.startHandle, cgms.endHandle], [0x0020, 0x002A])
            XCTAssertEqual(cgms.characteristics.map(\.uuid), [0x2AA7, 0x2AA8, 0x2AAA, 0x2A52].map(BluetoothUUID.init))
            XCTAssertEqual(cgms.characteristics.map(\.valueHandle), [0x22, 0x25, 0x27, 0x29])
            XCTAssertEqual(cgms.characteristics.map(\.properties), [.notify, .read, [.read, .write], [.write, .indicate]])
            XCTAssertEqual(cgms.characteristics.map { $0.cccd?.handle }, [0x23, nil, nil, 0x2A])
            XCTAssertEqual(database.characteristic(valueHandle: 0x29)?.uuid, BluetoothUUID(0x2A52))
            XCTAssertEqual(database.characteristic(BluetoothUUID(0x2A38), in: BluetoothUUID(0x180D))?.valueHandle, 0x15)
        }
    }

    /// The whole session as a driver would hold it; the log is what the driver saw.
    func testSessionAsADriverSeesIt() throws {
        var logs: [[String]] = []
        for url in Self.files {
            let bearer = try ReplayATTBearer(contentsOf: url)
            logs.append(try Self.runSession(ATTClient(bearer: bearer)))
            // Every recorded PDU was used: nothing stepped over, every device PDU served.
            XCTAssertEqual(bearer.progress, ReplayATTBearer.Progress(served: 34, matched: 22, steppedOver: 0, total: 56))
        }
        XCTAssertEqual(logs[0].dropLast(), logs[1].dropLast(), "the two formats replay identically")
        XCTAssertEqual(
            logs[1].last,
            "end: the Bluetooth connection ended: the device disconnected (remote user terminated connection, "
                + "synthetic-hrs-cgms-btmon-monitor.btsnoop record 92)")
        XCTAssertEqual(
            logs[0],
            [
                "read 0x0015 = 01 at 08:00:00.315000",
                "read 0x0025 = 00 90 01 59 C4 5C at 08:00:00.327000",
                "read 0x0027 = E8 07 01 0F 07 00 00 04 00 B1 8D at 08:00:00.339000",
                "read 0x0029 failed: the device refused the Read Request on handle 0x0029: Read Not Permitted (0x02)",
                "notification 0x0012 = 16 48 00 04 at 08:00:00.449000",
                "notification 0x0012 = 16 4B 34 03 16 03 at 08:00:01.449000",
                "notification 0x0012 = 1E 5A 10 00 AB 02 at 08:00:02.449000",
                "notification 0x0012 = 07 B4 00 at 08:00:03.449000",
                "notification 0x0012 = 04 00 at 08:00:04.449000",
                "notification 0x0012 = 06 65 at 08:00:05.449000",
                "notification 0x0012 = 00 58 at 08:00:06.449000",
                "notification 0x0022 = 0C 03 78 00 3C 00 F1 FF 5F 00 88 3D at 08:00:06.749000",
                "notification 0x0022 = 08 00 79 00 3D 00 D4 8C 08 00 77 00 3E 00 FE 08 0C 03 76 00 3F 00 FE 0F 5A 00 8D 41 at 08:00:07.749000",
                "notification 0x0022 = 09 20 FF 07 40 00 02 C9 30 at 08:00:08.749000",
                "quiet",
                "racp 04 01 written",
                "indication 0x0029 = 05 00 02 00 at 08:00:09.261000",
                "racp 01 01 written",
                "notification 0x0022 = 08 00 6E 00 0A 00 FE E3 at 08:00:09.285000",
                "notification 0x0022 = 08 00 60 F4 0F 00 51 DC at 08:00:09.290000",
                "indication 0x0029 = 06 00 01 01 at 08:00:09.295000",
                "end: the Bluetooth connection ended: the device disconnected (remote user terminated connection, NAME record 91)",
            ].map { $0.replacingOccurrences(of: "NAME record 91", with: "\(Self.files[0].lastPathComponent) record 91") })
    }

    /// The error responses of discovery are on the wire where EXPECTED.md says, and end each
    /// procedure without failing it.
    func testDiscoveryErrorsOnTheWire() throws {
        let link = try XCTUnwrap(LECapture.read(contentsOf: Self.files[0]).connections.first)
        let errors = try link.att.compactMap { captured -> String? in
            guard case .errorResponse(let request, let handle, let code) = try ATTPDU(bytes: captured.bytes) else { return nil }
            return "\(ATTOpcode.name(request)) \(handleText(handle)) \(code)"
        }
        XCTAssertEqual(
            errors,
            [
                "Read By Group Type Request 0x002B Attribute Not Found (0x0A)",
                "Read By Type Request 0x0017 Attribute Not Found (0x0A)",
                "Read By Type Request 0x0029 Attribute Not Found (0x0A)",
                "Read Request 0x0029 Read Not Permitted (0x02)",
            ])
    }

    /// What a CGM + heart-rate driver does: MTU, discovery, reads, subscriptions, control point
    /// write, listening, RACP count and report, until the device leaves.
    static func runSession(_ client: any GATTClient) throws -> [String] {
        var log: [String] = []
        _ = try client.exchangeMTU(preferred: 65)
        let database = try client.discoverAll()
        for uuid in [0x2A38, 0x2AA8, 0x2AAA, 0x2A52].map(BluetoothUUID.init) {
            let characteristic = database.characteristic(uuid)!
            do {
                let value = try client.read(characteristic)
                log.append("read \(handleText(characteristic.valueHandle)) = \(Hex.encode(value.bytes)) at \(clock(value.hostTime))")
            } catch {
                log.append("read \(handleText(characteristic.valueHandle)) failed: \(error)")
            }
        }
        try client.subscribe(database.characteristic(BluetoothUUID(0x2A37))!)
        try client.subscribe(database.characteristic(BluetoothUUID(0x2AA7))!)
        let racp = database.characteristic(BluetoothUUID(0x2A52))!
        try client.subscribe(racp, to: .indications)
        try client.write([0x01], to: database.characteristic(BluetoothUUID(0x2A39))!)

        func drain() throws {
            while let note = try client.nextNotification(timeout: .seconds(2)) {
                log.append(
                    "\(note.isIndication ? "indication" : "notification") \(handleText(note.handle)) = \(Hex.encode(note.value)) at \(clock(note.hostTime))"
                )
            }
        }
        try drain()
        log.append("quiet")
        try client.write([0x04, 0x01], to: racp)
        log.append("racp 04 01 written")
        try drain()
        try client.write([0x01, 0x01], to: racp)
        log.append("racp 01 01 written")
        do {
            try drain()
            log.append("no end")
        } catch {
            log.append("end: \(error)")
        }
        return log
    }

    /// `08:00:00.315000` (UTC).
    static func clock(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let ofDay = micros % 86_400_000_000
        return String(
            format: "%02d:%02d:%02d.%06d", Int(ofDay / 3_600_000_000), Int(ofDay / 60_000_000 % 60), Int(ofDay / 1_000_000 % 60),
            Int(ofDay % 1_000_000))
    }
}
