import Foundation
import TestSupport
import Transport
import XCTest

@testable import CaptureBluetooth

/// Hand-built captures: the writer round trip, ACL fragmentation, cut and corrupt files.
final class BTSnoopUnitTests: XCTestCase {
    let start = Date(timeIntervalSince1970: 1_705_305_600.25)
    let peer = BluetoothAddress("C0:11:22:33:44:55")!

    var connectionComplete: HCIPacket {
        .event(
            code: HCIEvent.leMetaCode,
            parameters: LEConnectionComplete(
                status: 0, handle: 0x0040, role: .central, peerAddressType: .random, peerAddress: peer, interval: 0x27,
                latency: 0, supervisionTimeout: 0x1F4, isEnhanced: false
            ).legacyEventParameters)
    }

    /// A session whose 31-byte notification travels in two ACL packets, and a sent PDU in three.
    func session() -> [(HCIPacket, HCIDirection, Date)] {
        var out: [(HCIPacket, HCIDirection, Date)] = [
            (.command(opcode: 0x200D, parameters: [0x60, 0x00]), .sent, start),
            (connectionComplete, .received, start.addingTimeInterval(0.01)),
        ]
        let long = hexBytes("1b2200080079003d00d48c080077003e00fe080c0376003f00fe0f5a008d41")
        let frame = L2CAPFrame(channel: L2CAPFrame.attChannel, payload: long)
        for (index, packet) in frame.aclPackets(handle: 0x40, direction: .received).enumerated() {
            out.append((.acl(packet), .received, start.addingTimeInterval(0.02 + 0.0003 * Double(index))))
        }
        let write = L2CAPFrame(channel: L2CAPFrame.attChannel, payload: hexBytes("12 29 00 01 01"))
        for (index, packet) in write.aclPackets(handle: 0x40, direction: .sent, maxFragment: 4).enumerated() {
            out.append((.acl(packet), .sent, start.addingTimeInterval(0.03 + 0.0001 * Double(index))))
        }
        out.append((.event(code: HCIEvent.disconnectionCompleteCode, parameters: [0, 0x40, 0, 0x13]), .received, start.addingTimeInterval(0.5)))
        return out
    }

    func write(_ packets: [(HCIPacket, HCIDirection, Date)], datalink: BTSnoopDatalink, name: String) throws -> URL {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent(name)
        let writer = try BTSnoopWriter(url: url, datalink: datalink)
        if datalink == .monitor {
            try writer.appendNewIndex(index: 0, address: BluetoothAddress("11:22:33:44:55:66")!, name: "hci0", at: start)
        }
        for (packet, direction, time) in packets { try writer.append(packet, direction: direction, at: time) }
        try writer.close()
        return url
    }

    func testWriterRoundTripInBothDatalinks() throws {
        let packets = session()
        XCTAssertEqual(packets.count, 2 + 2 + 3 + 1)
        for datalink in [BTSnoopDatalink.hciUART, .monitor] {
            let file = try BTSnoopReader.read(contentsOf: try write(packets, datalink: datalink, name: "s.btsnoop"))
            XCTAssertEqual(file.datalink, datalink)
            let read = file.packets.compactMap { record in
                record.packet.map { ($0, record.direction!, record.timestamp) }
            }
            XCTAssertEqual(read.count, packets.count)
            for (got, want) in zip(read, packets) {
                XCTAssertEqual(got.0, want.0)
                XCTAssertEqual(got.1, want.1)
                XCTAssertEqual(got.2, BTSnoopTimestamp(want.2))
                XCTAssertEqual(got.2.date.timeIntervalSince1970, want.2.timeIntervalSince1970, accuracy: 1e-6)
            }
            let flags = file.packets.map(\.flags)
            if datalink == .hciUART {
                XCTAssertEqual(flags, [2, 3, 1, 1, 0, 0, 0, 3], "Android's flags")
            } else {
                XCTAssertEqual(flags, [0, 2, 3, 5, 5, 4, 4, 4, 3], "monitor opcodes")
            }
        }
    }

    func testTimestampEpochs() {
        // 2024-01-15T08:00:00Z in btsnoop's epoch, as EXPECTED.md gives it; BlueZ's writer formula
        // (2000-01-01 base + 0x00E03AB44A676000) gives the same number.
        let date = Date(timeIntervalSince1970: 1_705_305_600)
        XCTAssertEqual(BTSnoopTimestamp(date).raw, 0x00E2_ECAA_75B5_0000)
        XCTAssertEqual(UInt64(1_705_305_600 - 946_684_800) * 1_000_000 + 0x00E0_3AB4_4A67_6000, 0x00E2_ECAA_75B5_0000)
        XCTAssertEqual(BTSnoopTimestamp(raw: 0x00E2_ECAA_75B5_0000).date, date)
        XCTAssertEqual(BTSnoopTimestamp(raw: BTSnoopTimestamp.epochDelta).unixMicroseconds, 0)
    }

    func testFragmentedACLIsReassembledWithTheFirstFragmentsTime() throws {
        let capture = try LECapture(try BTSnoopReader.read(contentsOf: try write(session(), datalink: .hciUART, name: "f.btsnoop")))
        let link = try XCTUnwrap(capture.connections.first)
        XCTAssertEqual(link.att.count, 2)
        XCTAssertEqual(link.att[0].bytes, hexBytes("1b2200080079003d00d48c080077003e00fe080c0376003f00fe0f5a008d41"))
        XCTAssertEqual(link.att[0].fragments, 2)
        XCTAssertEqual(link.att[0].direction, .received)
        XCTAssertEqual(link.att[0].record, 3)
        XCTAssertEqual(link.att[0].timestamp, BTSnoopTimestamp(start.addingTimeInterval(0.02)))
        XCTAssertEqual(link.att[1].bytes, hexBytes("12 29 00 01 01"))
        XCTAssertEqual(link.att[1].fragments, 3)
        XCTAssertEqual(link.att[1].direction, .sent)
        XCTAssertEqual(link.disconnectReason, 0x13)
    }

    func testReassemblerRules() throws {
        var reassembler = L2CAPReassembler()
        // A continuation with nothing open is dropped and counted.
        XCTAssertNil(try reassembler.add(HCIACLPacket(handle: 1, boundary: HCIACLPacket.continuation, data: [1, 2])))
        XCTAssertEqual(reassembler.orphanFragments, 1)
        // A frame whose header itself is split.
        XCTAssertNil(try reassembler.add(HCIACLPacket(handle: 1, boundary: HCIACLPacket.startFlushable, data: [3, 0])))
        XCTAssertNil(try reassembler.add(HCIACLPacket(handle: 1, boundary: HCIACLPacket.continuation, data: [4, 0, 0x1B])))
        XCTAssertEqual(
            try reassembler.add(HCIACLPacket(handle: 1, boundary: HCIACLPacket.continuation, data: [0x12, 0x00])),
            L2CAPFrame(channel: 4, payload: [0x1B, 0x12, 0x00], fragments: 3))
        XCTAssertFalse(reassembler.isPending)

        // A new start while a frame still misses bytes.
        XCTAssertNil(try reassembler.add(HCIACLPacket(handle: 0x40, boundary: 0b10, data: [5, 0, 4, 0, 0x1B])))
        XCTAssertThrowsError(try reassembler.add(HCIACLPacket(handle: 0x40, boundary: 0b10, data: [1, 0, 4, 0, 0x13]))) { error in
            XCTAssertEqual("\(error)", "an ACL start fragment on handle 0x0040 while the previous L2CAP frame still misses 4 bytes")
        }
        // More bytes than the frame holds.
        reassembler.reset()
        XCTAssertThrowsError(try reassembler.add(HCIACLPacket(handle: 0x40, boundary: 0b10, data: [1, 0, 4, 0, 0x13, 0x00]))) { error in
            XCTAssertEqual("\(error)", "ACL fragments on handle 0x0040 carry 6 bytes for an L2CAP frame of 5")
        }
    }

    func testOverrunningFragmentNamesTheRecord() throws {
        var packets = session()
        // Replace the notification's continuation with one that is 3 bytes too long.
        guard case .acl(var packet) = packets[3].0 else { return XCTFail() }
        packet.data += [0, 0, 0]
        packets[3].0 = .acl(packet)
        let url = try write(packets, datalink: .hciUART, name: "overrun.btsnoop")
        XCTAssertThrowsError(try LECapture.read(contentsOf: url)) { error in
            let offset = 16 + (24 + 1 + 5) + (24 + 1 + 21) + (24 + 1 + 31)
            XCTAssertEqual(
                error as? BTSnoopError,
                .malformedPacket(
                    file: "overrun.btsnoop", record: 4, offset: offset,
                    problem: "ACL fragments on handle 0x0040 carry 38 bytes for an L2CAP frame of 35"))
            XCTAssertEqual(
                "\(error)",
                "overrun.btsnoop: record 4 at byte \(offset) is malformed: "
                    + "ACL fragments on handle 0x0040 carry 38 bytes for an L2CAP frame of 35")
        }
    }

    /// A file cut inside a record's data, and inside a record header, is an error naming the
    /// record and where it starts.
    func testTruncatedCapture() throws {
        let bytes = try Data(contentsOf: BTSnoopCaptureTests.syntheticH4)
        // Records 1–4 are the scan commands and their Command Complete events.
        let record5 = 16 + (24 + 11) + (24 + 7) + (24 + 6) + (24 + 7)
        let cut = Array(bytes.prefix(record5 + 24 + 10))
        XCTAssertThrowsError(try BTSnoopReader.parse(cut, name: "cut.btsnoop")) { error in
            XCTAssertEqual(
                error as? BTSnoopError,
                .truncated(
                    file: "cut.btsnoop", part: .recordData(record: 5), offset: record5, needed: 33, remaining: 10))
            XCTAssertEqual(
                "\(error)", "cut.btsnoop: record 5 at byte \(record5) claims 33 bytes of packet data but only 10 remain — the file is cut short")
        }
        XCTAssertThrowsError(try BTSnoopReader.parse(Array(bytes.prefix(record5 + 7)), name: "cut.btsnoop")) { error in
            XCTAssertEqual(
                "\(error)", "cut.btsnoop: record 5 at byte \(record5): its record header needs 24 bytes but only 7 remain — the file is cut short")
        }
        XCTAssertThrowsError(try BTSnoopReader.parse(Array(bytes.prefix(12)), name: "cut.btsnoop")) { error in
            XCTAssertEqual(error as? BTSnoopError, .truncated(file: "cut.btsnoop", part: .fileHeader, offset: 0, needed: 16, remaining: 12))
        }
        // Cut between records: everything before the cut reads.
        XCTAssertEqual(try BTSnoopReader.parse(Array(bytes.prefix(record5)), name: "cut.btsnoop").packets.count, 4)
    }

    func testHeaderErrors() throws {
        XCTAssertThrowsError(try BTSnoopReader.parse([], name: "e")) { XCTAssertEqual($0 as? BTSnoopError, .empty(file: "e")) }
        XCTAssertThrowsError(try BTSnoopReader.parse(Array("hello world, not btsnoop".utf8), name: "t")) { error in
            XCTAssertTrue("\(error)".hasPrefix("t: not a btsnoop capture (first bytes 68 65 6C 6C 6F"), "\(error)")
        }
        var header = BTSnoopReader.identification
        header.appendBE(1)
        header.appendBE(1004)
        XCTAssertThrowsError(try BTSnoopReader.parse(header, name: "h5")) { error in
            XCTAssertEqual(error as? BTSnoopError, .unsupportedDatalink(file: "h5", datalink: 1004))
            XCTAssertTrue("\(error)".contains("expected 1002 (HCI UART/H4, Android), 2001 (btmon monitor)"))
        }
        var version2 = BTSnoopReader.identification
        version2.appendBE(2)
        version2.appendBE(1002)
        XCTAssertThrowsError(try BTSnoopReader.parse(version2, name: "v")) {
            XCTAssertEqual($0 as? BTSnoopError, .unsupportedVersion(file: "v", version: 2))
        }
        XCTAssertThrowsError(try BTSnoopReader.read(contentsOf: URL(fileURLWithPath: "/nonexistent/x.btsnoop"))) {
            XCTAssertEqual($0 as? BTSnoopError, .unreadable(file: "x.btsnoop", reason: "No such file or directory"))
        }
    }

    /// A record whose ACL length field disagrees with its bytes.
    func testMalformedACLRecord() throws {
        var file = BTSnoopReader.identification
        file.appendBE(1)
        file.appendBE(1002)
        let body: [UInt8] = [0x02, 0x40, 0x20, 0x09, 0x00, 0x05, 0x00, 0x04, 0x00, 0x13]
        for word in [UInt32(body.count), UInt32(body.count), 1, 0, 0x00E2_ECAA, 0x75B5_0000] { file.appendBE(word) }
        file += body
        XCTAssertThrowsError(try BTSnoopReader.parse(file, name: "bad.log")) { error in
            XCTAssertEqual("\(error)", "bad.log: record 1 at byte 16 is malformed: ACL data length 9 but 5 bytes follow")
        }
    }

    /// Android's filtered mode cuts ACL records (included < original): they are kept undecoded,
    /// and a frame they belonged to is dropped rather than glued to the next one.
    func testCutRecordsAndClassicLinks() throws {
        let url = try write(session(), datalink: .hciUART, name: "filtered.log")
        var bytes = [UInt8](try Data(contentsOf: url))
        // Record 3 is the notification's first fragment (H4 + 4 + 27 bytes): keep 9 of its 32 bytes.
        let record3 = 16 + (24 + 1 + 5) + (24 + 1 + 21)
        let cutLength: UInt32 = 9
        bytes.replaceSubrange((record3 + 4)..<(record3 + 8), with: [0, 0, 0, UInt8(cutLength)])
        bytes.removeSubrange((record3 + 24 + Int(cutLength))..<(record3 + 24 + 32))
        // A classic-link ACL packet (handle 0x0033) that no LE connection opened.
        let classic = HCIPacket.acl(HCIACLPacket(handle: 0x33, boundary: 0b10, data: [2, 0, 0x40, 0, 1, 2]))
        var record: [UInt8] = []
        let body = [HCIPacketType.acl.rawValue] + classic.bytes
        for word in [UInt32(body.count), UInt32(body.count), 1, 0, 0x00E2_ECAA, 0x75B5_0000] { record.appendBE(word) }
        bytes += record + body

        let file = try BTSnoopReader.parse(bytes, name: "filtered.log")
        XCTAssertEqual(file.packets[2].content, .truncated)
        XCTAssertTrue(file.packets[2].isTruncated)
        let capture = try LECapture(file)
        let link = try XCTUnwrap(capture.connections.first)
        XCTAssertEqual(link.att.map(\.bytes), [hexBytes("12 29 00 01 01")], "the cut notification is gone")
        XCTAssertEqual(capture.orphanFragments, 1, "its continuation had no frame to join")
        XCTAssertEqual(capture.ignoredACLPackets, 1)
    }

    /// Handles are reused: a second connection on the same handle is a new entry, and a failed
    /// attempt opens nothing.
    func testHandleReuse() throws {
        var packets = session()
        var failed = LEConnectionComplete(
            status: 0x3E, handle: 0x0040, role: .central, peerAddressType: .public, peerAddress: peer, interval: 0, latency: 0,
            supervisionTimeout: 0, isEnhanced: false)
        packets.append((.event(code: HCIEvent.leMetaCode, parameters: failed.legacyEventParameters), .received, start.addingTimeInterval(1)))
        failed.status = 0
        packets.append((.event(code: HCIEvent.leMetaCode, parameters: failed.legacyEventParameters), .received, start.addingTimeInterval(2)))
        let notify = L2CAPFrame(channel: 4, payload: [0x1B, 0x12, 0x00, 0x06, 0x65]).aclPackets(handle: 0x40, direction: .received)
        packets.append((.acl(notify[0]), .received, start.addingTimeInterval(3)))
        let smp = L2CAPFrame(channel: L2CAPFrame.smpChannel, payload: [0x01, 0x03]).aclPackets(handle: 0x40, direction: .received)
        packets.append((.acl(smp[0]), .received, start.addingTimeInterval(3.5)))

        let capture = try LECapture(try BTSnoopReader.read(contentsOf: try write(packets, datalink: .monitor, name: "reuse.btsnoop")))
        XCTAssertEqual(capture.connections.count, 2)
        XCTAssertEqual(capture.failedConnections.map(\.status), [0x3E])
        XCTAssertEqual(capture.connections[0].att.count, 2)
        XCTAssertEqual(capture.connections[1].att.map(\.bytes), [[0x1B, 0x12, 0x00, 0x06, 0x65]])
        XCTAssertEqual(capture.connections[1].peerAddressType, .public)
        XCTAssertEqual(capture.connections[1].otherChannels, [L2CAPFrame.smpChannel: 1])
        XCTAssertNil(capture.connections[1].closed)
    }

    func testAdvertisingDataAndAddresses() {
        let data = AdvertisingData(hexBytes("020106 05030d181f18 0809 53796e42616e64 0303 0f18 020a f4 05ff 5900 0102 04ff 01"))
        XCTAssertEqual(data.flags, 6)
        XCTAssertEqual(data.serviceUUIDs, [BluetoothUUID(0x180D), BluetoothUUID(0x181F), BluetoothUUID(0x180F)])
        XCTAssertEqual(data.localName, "SynBand")
        XCTAssertEqual(data.txPower, -12)
        XCTAssertEqual(data.manufacturerData?.company, 0x0059)
        XCTAssertEqual(data.manufacturerData?.data, [1, 2])
        XCTAssertTrue(data.isCutShort)

        let uuid = BluetoothUUID(littleEndian: hexBytes("fb349b5f80000080001000000d180000"))
        XCTAssertEqual(uuid, BluetoothUUID(0x180D))
        XCTAssertEqual(uuid?.short, 0x180D)
        XCTAssertEqual(BluetoothUUID(0x2A37).description, "0x2A37")
        XCTAssertEqual(BluetoothUUID("00002a37-0000-1000-8000-00805f9b34fb"), BluetoothUUID(0x2A37))
        let vendor = BluetoothUUID("00000009-0000-3512-2118-0009af100700")!
        XCTAssertNil(vendor.short)
        XCTAssertEqual(vendor.description, "00000009-0000-3512-2118-0009af100700")
        XCTAssertEqual(BluetoothUUID(littleEndian: vendor.littleEndianBytes), vendor)

        XCTAssertEqual(BluetoothAddress(littleEndian: [0x55, 0x44, 0x33, 0x22, 0x11, 0xC0])?.description, "C0:11:22:33:44:55")
        XCTAssertNil(BluetoothAddress("C0:11:22:33:44"))
        XCTAssertNil(BluetoothAddress("C0:11:22:33:44:GG"))
    }
}

/// Datalink 1001 (no H4 byte): the flags say command, event or data, and the direction.
final class BTSnoopH1Tests: XCTestCase {
    func testUnencapsulatedHCI() throws {
        var file = BTSnoopReader.identification
        file.appendBE(1)
        file.appendBE(1001)
        let records: [(UInt32, [UInt8])] = [
            (2, hexBytes("0b2007 01100010000000")),
            (3, hexBytes("0e04 010b2000")),
            (3, hexBytes("3e13 0100400000015544332211c027000000f40100")),
            (0, hexBytes("4000 0700 0300 0400 0a1500")),
            (1, hexBytes("4020 0600 0200 0400 0b01")),
        ]
        for (index, (flags, body)) in records.enumerated() {
            for word in [UInt32(body.count), UInt32(body.count), flags, 0, 0x00E2_ECAA, 0x75B5_0000 + UInt32(index) * 1000] {
                file.appendBE(word)
            }
            file += body
        }
        let snoop = try BTSnoopReader.parse(file, name: "h1.btsnoop")
        XCTAssertEqual(snoop.datalink, .hciUnencapsulated)
        XCTAssertEqual(snoop.packets.map(\.packet?.type), [.command, .event, .event, .acl, .acl])
        XCTAssertEqual(snoop.packets.map(\.direction), [.sent, .received, .received, .sent, .received])
        let link = try XCTUnwrap(LECapture(snoop).connections.first)
        XCTAssertEqual(link.att.map(\.bytes), [hexBytes("0a1500"), hexBytes("0b01")])
        XCTAssertEqual(link.att[1].timestamp.unixMicroseconds - link.att[0].timestamp.unixMicroseconds, 1000)
    }
}
