import Foundation
import TestSupport
import Transport
import XCTest

@testable import CaptureBluetooth

/// The two real-format captures in fixtures/ble: counts re-derived by the researcher with an
/// independent parser (fixtures/ble/PROVENANCE.md, synthetic/EXPECTED.md) must come out of the
/// reader, the connection tracker and the ACL reassembly.
final class BTSnoopCaptureTests: XCTestCase {
    static let treadmill = Fixtures.url("ble/horizon-74-at-ble/btsnoop_hci.log")
    static let syntheticH4 = Fixtures.url("ble/synthetic/synthetic-hrs-cgms-android-h4.btsnoop")
    static let syntheticMonitor = Fixtures.url("ble/synthetic/synthetic-hrs-cgms-btmon-monitor.btsnoop")

    // MARK: real Android snoop of a treadmill

    func testTreadmillRecordsAndHCICounts() throws {
        let file = try BTSnoopReader.read(contentsOf: Self.treadmill)
        XCTAssertEqual(file.datalink, .hciUART)
        XCTAssertEqual(file.packets.count, 2572)
        XCTAssertEqual(file.packets.filter(\.isTruncated).count, 0)

        let commands = file.packets.filter { $0.packet?.type == .command }
        let events = file.packets.filter { $0.packet?.type == .event }
        let acl = file.packets.compactMap { record -> (HCIACLPacket, BTSnoopPacket)? in
            if case .acl(let packet) = record.packet { return (packet, record) }
            return nil
        }
        XCTAssertEqual(commands.count, 95)
        XCTAssertTrue(commands.allSatisfy { $0.flags == 2 && $0.direction == .sent })
        XCTAssertEqual(events.count, 818)
        XCTAssertTrue(events.allSatisfy { $0.flags == 3 && $0.direction == .received })
        XCTAssertEqual(acl.count, 1659)
        let sent = acl.filter { $0.1.direction == .sent }
        let received = acl.filter { $0.1.direction == .received }
        XCTAssertEqual(sent.count, 306)
        XCTAssertEqual(received.count, 1353)
        XCTAssertTrue(sent.allSatisfy { $0.1.flags == 0 && $0.0.boundary == HCIACLPacket.startNonFlushable })
        XCTAssertTrue(received.allSatisfy { $0.1.flags == 1 && $0.0.boundary == HCIACLPacket.startFlushable })
        XCTAssertEqual(acl.map { $0.0.data.count }.max(), 27)

        XCTAssertEqual(file.packets.first?.timestamp.raw, 0x00E2_97F0_FFF9_76C7)
        XCTAssertEqual(Self.iso(file.packets.first!.timestamp), "2021-02-01T03:27:59.092423Z")
        XCTAssertEqual(Self.iso(file.packets.last!.timestamp), "2021-02-01T03:30:26.288360Z")
        XCTAssertEqual(file.packets.first!.hostTime.timeIntervalSince1970, 1_612_150_079.092423, accuracy: 1e-6)
    }

    func testTreadmillConnectionAndATTStream() throws {
        let capture = try LECapture.read(contentsOf: Self.treadmill)
        XCTAssertEqual(capture.connections.count, 1)
        let link = try XCTUnwrap(capture.connections.first)
        XCTAssertEqual(link.handle, 0x0200)
        XCTAssertTrue(link.opening.isEnhanced)
        XCTAssertEqual(link.peerAddress.description, "FA:E4:E3:24:20:09")
        XCTAssertEqual(link.peerAddressType, .random)
        XCTAssertEqual(link.role, .central)
        XCTAssertNil(link.disconnectReason, "the capture ends before the link does")
        XCTAssertEqual(capture.ignoredACLPackets, 0)
        XCTAssertEqual(capture.orphanFragments, 0)

        // Every L2CAP frame is ATT; none spans two ACL packets.
        XCTAssertEqual(link.att.count, 1659)
        XCTAssertEqual(link.otherChannels, [:])
        XCTAssertTrue(link.att.allSatisfy { $0.fragments == 1 })
        XCTAssertEqual(link.att.first?.bytes, hexBytes("10 01 00 ff ff 00 28"))
        XCTAssertEqual(link.att.first?.direction, .sent)

        let notifications = link.att.filter { $0.bytes.first == 0x1B }
        XCTAssertEqual(notifications.count, 1047)
        XCTAssertEqual(notifications.first?.bytes, hexBytes("1b 12 00 05 02"))
        XCTAssertEqual(Self.iso(notifications.first!.timestamp), "2021-02-01T03:28:12.774733Z")
        XCTAssertEqual(notifications.filter { $0.bytes[1] == 0x14 && $0.bytes[2] == 0 }.count, 786)
        XCTAssertEqual(notifications.filter { $0.bytes[1] == 0x12 && $0.bytes[2] == 0 }.count, 261)
    }

    // MARK: synthetic session in both formats

    func testSyntheticRecordCounts() throws {
        let h4 = try BTSnoopReader.read(contentsOf: Self.syntheticH4)
        let monitor = try BTSnoopReader.read(contentsOf: Self.syntheticMonitor)
        XCTAssertEqual(h4.datalink, .hciUART)
        XCTAssertEqual(monitor.datalink, .monitor)
        XCTAssertEqual(h4.packets.count, 91)
        XCTAssertEqual(monitor.packets.count, 92)

        let first = try XCTUnwrap(monitor.packets.first)
        XCTAssertEqual(
            first.content,
            .newIndex(type: 0, bus: 1, address: BluetoothAddress("11:22:33:44:55:66")!, name: "hci0"))
        XCTAssertEqual(first.controllerIndex, 0)
        XCTAssertEqual(h4.packets[0].timestamp.raw, 0x00E2_ECAA_75B5_0000)
        XCTAssertEqual(Self.iso(h4.packets[0].timestamp), "2024-01-15T08:00:00.000000Z")
        XCTAssertEqual(h4.packets[0].timestamp.unixMicroseconds - first.timestamp.unixMicroseconds, 1000)

        XCTAssertEqual(h4.packets.filter { $0.packet?.type == .command && $0.flags == 2 }.count, 4)
        XCTAssertEqual(h4.packets.filter { $0.packet?.type == .event && $0.flags == 3 }.count, 29)
        let acl = h4.packets.compactMap { record -> HCIACLPacket? in
            if case .acl(let packet) = record.packet { return packet }
            return nil
        }
        XCTAssertEqual(acl.count, 58)
        XCTAssertEqual(h4.packets.filter { $0.packet?.type == .acl && $0.flags == 0 }.count, 22)
        XCTAssertEqual(h4.packets.filter { $0.packet?.type == .acl && $0.flags == 1 }.count, 36)
        XCTAssertEqual(acl.filter { $0.boundary == 0b00 }.count, 22)
        XCTAssertEqual(acl.filter { $0.boundary == 0b10 }.count, 34)
        XCTAssertEqual(acl.filter { $0.boundary == 0b01 }.count, 2)

        // The same packets, directions and times in both containers.
        func packets(_ file: BTSnoopFile) -> [String] {
            file.packets.compactMap { record in
                record.packet.map { "\($0) \(record.direction!) \(record.timestamp.raw)" }
            }
        }
        XCTAssertEqual(packets(h4).count, 91)
        XCTAssertEqual(packets(h4), packets(monitor))
    }

    func testSyntheticConnectionAdvertisingAndDisconnect() throws {
        for url in [Self.syntheticH4, Self.syntheticMonitor] {
            let capture = try LECapture.read(contentsOf: url)
            XCTAssertEqual(capture.connections.count, 1, url.lastPathComponent)
            let link = try XCTUnwrap(capture.connections.first)
            XCTAssertFalse(link.opening.isEnhanced)
            XCTAssertEqual(link.opening.status, 0)
            XCTAssertEqual(link.handle, 0x0040)
            XCTAssertEqual(link.role, .central)
            XCTAssertEqual(link.peerAddressType, .random)
            XCTAssertEqual(link.peerAddress, BluetoothAddress("C0:11:22:33:44:55"))
            XCTAssertEqual(link.opening.interval, 0x0027)
            XCTAssertEqual(link.opening.supervisionTimeout, 0x01F4)
            XCTAssertEqual(link.disconnectReason, 0x13)
            XCTAssertEqual(HCIEvent.reasonName(0x13), "remote user terminated connection")
            XCTAssertEqual(Self.iso(link.closed!), "2024-01-15T08:00:09.502000Z")

            XCTAssertEqual(link.otherChannels, [:], "only CID 0x0004")
            XCTAssertEqual(link.att.count, 56)
            XCTAssertEqual(link.att.filter { $0.fragments == 2 }.count, 2)

            XCTAssertEqual(capture.advertisingReports.count, 1)
            let report = try XCTUnwrap(capture.advertisingReports.first?.report)
            XCTAssertEqual(report.eventType, 0)
            XCTAssertEqual(report.address, BluetoothAddress("C0:11:22:33:44:55"))
            XCTAssertEqual(report.leAddressType, .random)
            XCTAssertEqual(report.rssi, -60)
            let data = report.advertisingData
            XCTAssertEqual(data.flags, 0x06)
            XCTAssertEqual(data.localName, "SynBand")
            XCTAssertEqual(data.serviceUUIDs, [BluetoothUUID(0x180D), BluetoothUUID(0x181F)])
            XCTAssertFalse(data.isCutShort)
        }
    }

    /// Both formats give the ATT transcript EXPECTED.md lists, PDU for PDU, to the microsecond.
    func testSyntheticATTStreamsMatchTheTranscript() throws {
        let text = try String(contentsOf: Fixtures.url("ble/synthetic/EXPECTED.md"), encoding: .utf8)
        let expected = text.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count == 4, fields[1] == "tx" || fields[1] == "rx" else { return nil }
            return "\(fields[0].replacingOccurrences(of: "+00:00", with: "Z")) \(fields[1]) \(fields[2]) \(fields[3])"
        }
        XCTAssertEqual(expected.count, 56)

        var streams: [[String]] = []
        for url in [Self.syntheticH4, Self.syntheticMonitor] {
            let link = try XCTUnwrap(LECapture.read(contentsOf: url).connections.first)
            streams.append(
                link.att.map { pdu in
                    "\(Self.iso(pdu.timestamp)) \(pdu.direction == .sent ? "tx" : "rx") h=0x\(Hex.digits(link.handle, count: 4).lowercased()) "
                        + Hex.encode(pdu.bytes, separator: "").lowercased()
                })
        }
        XCTAssertEqual(streams[0], expected)
        XCTAssertEqual(streams[1], expected)
    }

    /// `2021-02-01T03:27:59.092423Z`, computed from the integer microseconds.
    static func iso(_ timestamp: BTSnoopTimestamp) -> String {
        let micros = timestamp.unixMicroseconds
        let seconds = micros / 1_000_000
        let formatter = ISO8601DateFormatter()
        let whole = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return whole.dropLast() + String(format: ".%06dZ", Int(micros % 1_000_000))
    }
}
