import Foundation
import Transport

/// One ATT PDU carried on the ATT fixed channel (CID 0x0004) of an LE connection.
public struct CapturedATTPDU: Sendable, Equatable {
    /// `.sent` = host (the client) to the peer, `.received` = peer to host.
    package var direction: HCIDirection
    /// When its first ACL fragment was captured.
    package var timestamp: BTSnoopTimestamp
    /// The record number of its first ACL fragment.
    package var record: Int
    /// The PDU: opcode and parameters.
    public var bytes: [UInt8]
    /// How many ACL packets carried it.
    package var fragments: Int

    package init(direction: HCIDirection, timestamp: BTSnoopTimestamp, record: Int, bytes: [UInt8], fragments: Int = 1) {
        self.direction = direction
        self.timestamp = timestamp
        self.record = record
        self.bytes = bytes
        self.fragments = fragments
    }

    /// The capturing host's clock when the PDU crossed the interface.
    package var hostTime: Date { timestamp.date }
}

/// An LE connection seen in a capture, from its (Enhanced) Connection Complete to its
/// Disconnection Complete, with the ATT PDUs exchanged on it.
public struct LEConnection: Sendable, Equatable {
    package var controllerIndex: UInt16
    package var handle: UInt16
    /// The event that opened it.
    package var opening: LEConnectionComplete
    package var opened: BTSnoopTimestamp
    package var openedAtRecord: Int
    /// Set when a Disconnection Complete (or a later connection on the same handle) ended it.
    package var closed: BTSnoopTimestamp?
    package var closedAtRecord: Int?
    /// The HCI reason of its Disconnection Complete, when one was captured.
    package var disconnectReason: UInt8?
    /// ATT PDUs in capture order.
    public var att: [CapturedATTPDU] = []
    /// L2CAP frames on other channels (LE signalling, SMP, dynamic channels), counted per channel.
    package var otherChannels: [UInt16: Int] = [:]

    package var peerAddress: BluetoothAddress { opening.peerAddress }
    package var peerAddressType: LEAddressType { opening.peerAddressType }
    package var role: LERole { opening.role }
}

/// An advertising report seen in a capture.
package struct CapturedAdvertisingReport: Sendable, Equatable {
    package var record: Int
    package var timestamp: BTSnoopTimestamp
    package var controllerIndex: UInt16
    package var report: AdvertisingReport
}

/// What a btsnoop capture says about LE links: connections and their ATT streams (ACL reassembled
/// per connection and direction), and advertising reports [BlueZ lib/bluetooth/hci.h].
///
/// Only ACL on handles that an LE (Enhanced) Connection Complete opened is reassembled; other ACL
/// (classic BR/EDR links, links opened before the capture began) is counted and skipped. Handles
/// are reused after a disconnection, so each connection is its own entry.
public struct LECapture: Sendable, Equatable {
    package var file: BTSnoopFile
    public var connections: [LEConnection]
    package var advertisingReports: [CapturedAdvertisingReport]
    /// LE Connection Complete events with a non-zero status (attempts that made no connection).
    package var failedConnections: [LEConnectionComplete]
    /// ACL packets on handles with no open LE connection.
    package var ignoredACLPackets: Int
    /// Continuation fragments with no frame open (dropped).
    package var orphanFragments: Int

    /// The file's name, for messages.
    package var name: String { file.name }

    /// Reads the btsnoop file at `url` and follows its LE connections.
    package static func read(contentsOf url: URL) throws(BTSnoopError) -> LECapture {
        try LECapture(try BTSnoopReader.read(contentsOf: url))
    }

    public init(_ file: BTSnoopFile) throws(BTSnoopError) {
        self.file = file
        var tracker = Tracker(datalink: file.datalink)
        for record in file.packets {
            do {
                try tracker.add(record)
            } catch {
                throw .malformedPacket(file: file.name, record: record.number, offset: record.offset, problem: error.problem)
            }
        }
        connections = tracker.connections
        advertisingReports = tracker.reports
        failedConnections = tracker.failed
        ignoredACLPackets = tracker.ignored
        orphanFragments = tracker.reassemblers.values.reduce(0) { $0 + $1.orphanFragments } + tracker.retiredOrphans
    }

    /// The connections that carried ATT traffic, in opening order, seen from the central's side.
    ///
    /// A `btmon -w` capture taken without `-i` on a machine with two controllers linked to each other
    /// holds both ends of each link: the central's connection, and the peripheral's connection on the
    /// other controller, whose ATT stream is the same PDUs the other way round. That far end is left out.
    package var attConnections: [LEConnection] { connections.filter { !$0.att.isEmpty && !isFarEnd($0) } }

    /// Whether `connection` is the peripheral's end of a link whose central end this capture also
    /// holds on another controller: what that end sent is what this one received, in the same order.
    package func isFarEnd(_ connection: LEConnection) -> Bool {
        guard connection.role == .peripheral else { return false }
        let received = Array(connection.att.lazy.filter { $0.direction == .received }.prefix(4).map(\.bytes))
        guard !received.isEmpty else { return false }
        return connections.contains { central in
            central.role == .central && central.controllerIndex != connection.controllerIndex
                && Array(central.att.lazy.filter { $0.direction == .sent }.prefix(received.count).map(\.bytes)) == received
        }
    }

    /// The last local name `address` advertised in the capture.
    package func localName(of address: BluetoothAddress) -> String? {
        advertisingReports.lazy.reversed().filter { $0.report.address == address }.compactMap { $0.report.advertisingData.localName }.first
    }

    /// Follows connections record by record.
    private struct Tracker {
        struct Link: Hashable {
            var index: UInt16
            var handle: UInt16
        }

        struct Way: Hashable {
            var link: Link
            var direction: HCIDirection
        }

        let datalink: BTSnoopDatalink
        var connections: [LEConnection] = []
        var open: [Link: Int] = [:]
        var reassemblers: [Way: L2CAPReassembler] = [:]
        var starts: [Way: (record: Int, timestamp: BTSnoopTimestamp)] = [:]
        var reports: [CapturedAdvertisingReport] = []
        var failed: [LEConnectionComplete] = []
        var ignored = 0
        var retiredOrphans = 0

        mutating func add(_ record: BTSnoopPacket) throws(HCIDecodeError) {
            switch record.content {
            case .hci(.event(let code, let parameters), _):
                try event(HCIEvent(code: code, parameters: parameters), record)
            case .hci(.acl(let packet), let direction):
                try acl(packet, direction, record)
            case .truncated:
                dropCutFrame(record)
            case .deleteIndex:
                for link in open.keys where link.index == record.controllerIndex { close(link, record, reason: nil) }
            default:
                break
            }
        }

        mutating func event(_ event: HCIEvent, _ record: BTSnoopPacket) {
            switch event {
            case .leConnectionComplete(let complete):
                guard complete.status == 0 else {
                    failed.append(complete)
                    return
                }
                let link = Link(index: record.controllerIndex, handle: complete.handle)
                if open[link] != nil { close(link, record, reason: nil) }
                open[link] = connections.count
                connections.append(
                    LEConnection(
                        controllerIndex: link.index, handle: complete.handle, opening: complete, opened: record.timestamp,
                        openedAtRecord: record.number))
            case .disconnectionComplete(let status, let handle, let reason):
                guard status == 0 else { return }
                close(Link(index: record.controllerIndex, handle: handle), record, reason: reason)
            case .leAdvertisingReports(let list):
                for report in list {
                    reports.append(
                        CapturedAdvertisingReport(
                            record: record.number, timestamp: record.timestamp, controllerIndex: record.controllerIndex,
                            report: report))
                }
            default:
                break
            }
        }

        mutating func acl(_ packet: HCIACLPacket, _ direction: HCIDirection, _ record: BTSnoopPacket) throws(HCIDecodeError) {
            let link = Link(index: record.controllerIndex, handle: packet.handle)
            guard let position = open[link] else {
                ignored += 1
                return
            }
            let way = Way(link: link, direction: direction)
            if packet.isStart { starts[way] = (record.number, record.timestamp) }
            var reassembler = reassemblers[way] ?? L2CAPReassembler()
            let frame = try reassembler.add(packet)
            reassemblers[way] = reassembler
            guard let frame, let start = starts[way] else { return }
            if frame.channel == L2CAPFrame.attChannel {
                connections[position].att.append(
                    CapturedATTPDU(
                        direction: direction, timestamp: start.timestamp, record: start.record, bytes: frame.payload,
                        fragments: frame.fragments))
            } else {
                connections[position].otherChannels[frame.channel, default: 0] += 1
            }
        }

        /// A cut ACL record loses its bytes; a frame it belonged to can no longer complete.
        mutating func dropCutFrame(_ record: BTSnoopPacket) {
            let header: ArraySlice<UInt8>
            let received: Bool
            switch datalink {
            case .hciUART:
                guard record.data.first == HCIPacketType.acl.rawValue else { return }
                (header, received) = (record.data.dropFirst().prefix(2), record.flags & 1 != 0)
            case .hciUnencapsulated:
                guard record.flags & 2 == 0 else { return }
                (header, received) = (record.data.prefix(2), record.flags & 1 != 0)
            case .monitor:
                let opcode = UInt16(record.flags & 0xFFFF)
                guard opcode == BTSnoopReader.MonitorOpcode.aclSent || opcode == BTSnoopReader.MonitorOpcode.aclReceived else { return }
                (header, received) = (record.data.prefix(2), opcode == BTSnoopReader.MonitorOpcode.aclReceived)
            }
            guard header.count == 2 else { return }
            let handle = (UInt16(header.first!) | UInt16(header.last!) << 8) & 0x0FFF
            let way = Way(link: Link(index: record.controllerIndex, handle: handle), direction: received ? .received : .sent)
            reassemblers[way]?.reset()
        }

        mutating func close(_ link: Link, _ record: BTSnoopPacket, reason: UInt8?) {
            guard let position = open.removeValue(forKey: link) else { return }
            connections[position].closed = record.timestamp
            connections[position].closedAtRecord = record.number
            connections[position].disconnectReason = reason
            for direction in [HCIDirection.sent, .received] {
                let way = Way(link: link, direction: direction)
                retiredOrphans += reassemblers.removeValue(forKey: way)?.orphanFragments ?? 0
                starts[way] = nil
            }
        }
    }
}
