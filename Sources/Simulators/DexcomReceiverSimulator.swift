import Drivers
import Foundation
import Transport

/// A Dexcom G4 receiver in software: it answers the read commands from the pages it holds, with
/// a system clock and a host clock under the caller's control. Used to record demo and benchmark
/// captures and to test behaviour that needs a device to change between sessions.
package final class DexcomReceiverSimulator: USBTransport {
    package let device = USBDeviceDescription(
        vendorID: 0x22A3, productID: 0x0047, bus: 1, address: 7,
        manufacturer: "DexCom", product: "DexCom Gen4 USB Serial",
        interfaces: [
            USBInterface(
                number: 0, interfaceClass: 0x02, interfaceSubclass: 0x02, interfaceProtocol: 0x01,
                endpoints: [USBEndpoint(address: 0x81, type: .interrupt, maxPacketSize: 8)]),
            USBInterface(
                number: 1, interfaceClass: USBInterface.classCDCData, interfaceSubclass: 0, interfaceProtocol: 0,
                endpoints: [
                    USBEndpoint(address: 0x02, type: .bulk, maxPacketSize: 64),
                    USBEndpoint(address: 0x83, type: .bulk, maxPacketSize: 64),
                ]),
        ])

    /// Pages by partition id and page number.
    package var pages: [UInt8: [UInt32: [UInt8]]]
    /// The receiver's system clock, seconds since 2009-01-01.
    package var systemTime: UInt32
    package var displayTimeOffset: Int32
    /// The host's clock, read when a reply is delivered.
    package var hostClock: () -> Date
    /// After this many more replies the receiver behaves as unplugged.
    package var repliesBeforeUnplug: Int?
    package var firmwareHeader =
        "<FirmwareHeader SchemaVersion='1' ApiVersion='2.2.0.0' ProductId='G4Receiver' ProductName='Dexcom G4 Receiver' FirmwareVersion='2.0.1.104'/>"
    /// The EGV record layout PartitionInfo announces (the meter layout follows: G4 revision 1,
    /// G6 revision 3).
    package var egvLayout: DexcomPageBuilder.EGVLayout = .g4

    /// Every command id the host sent, in order.
    package private(set) var commandsReceived: [UInt8] = []
    package private(set) var claimed: Set<UInt8> = []
    private var outbox: [UInt8] = []
    private var inbox = DexcomPacketAssembler(location: WireLocation(message: "request to the simulated receiver"))

    package init(pages: [UInt8: [UInt32: [UInt8]]], systemTime: UInt32, displayTimeOffset: Int32, hostClock: @escaping () -> Date) {
        self.pages = pages
        self.systemTime = systemTime
        self.displayTimeOffset = displayTimeOffset
        self.hostClock = hostClock
    }

    package func claimInterface(_ number: UInt8) throws(TransportError) {
        claimed.insert(number)
    }

    package func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        guard endpoint.address == 0x02 else { throw .transferFailed(endpoint: endpoint.address, reason: "not the bulk OUT endpoint") }
        inbox.append(bytes)
        do {
            while let request = try inbox.nextPacket() {
                commandsReceived.append(request.code)
                outbox += reply(to: request).encoded()
            }
        } catch {
            outbox += DexcomPacket(code: DexcomReplyCode.incompletePacketReceived.rawValue).encoded()
        }
    }

    package func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        if let remaining = repliesBeforeUnplug {
            guard remaining > 0 else { throw .disconnected("simulated receiver unplugged") }
            repliesBeforeUnplug = remaining - 1
        }
        guard !outbox.isEmpty else { throw .timeout(endpoint: endpoint.address) }
        let chunk = Array(outbox.prefix(maxLength))
        outbox.removeFirst(chunk.count)
        return USBRead(bytes: chunk, hostTime: hostClock())
    }

    package func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        throw .transferFailed(endpoint: 0, reason: "the simulated receiver answers no control requests")
    }

    package func close() {
        claimed.removeAll()
    }

    private func reply(to request: DexcomPacket) -> DexcomPacket {
        let ack = DexcomReplyCode.ack.rawValue
        let payload = request.payload
        switch DexcomCommand(rawValue: request.code) {
        case .ping?:
            return DexcomPacket(code: ack)
        case .readFirmwareHeader?:
            return DexcomPacket(code: ack, payload: Array(firmwareHeader.utf8))
        case .readDatabasePartitionInfo?:
            let info =
                "<PartitionInfo SchemaVersion='1' PageHeaderVersion='1' PageDataLength='500'>"
                + "<Partition Name='ManufacturingData' Id='0' RecordRevision='1' RecordLength='500'/>"
                + "<Partition Name='EGVData' Id='4' RecordRevision='\(egvLayout.revision)' RecordLength='\(egvLayout.recordLength)'/>"
                + (egvLayout == .g4
                    ? "<Partition Name='MeterData' Id='10' RecordRevision='1' RecordLength='16'/>"
                    : "<Partition Name='MeterData' Id='10' RecordRevision='3' RecordLength='21'/>")
                + "</PartitionInfo>"
            return DexcomPacket(code: ack, payload: Array(info.utf8))
        case .readDatabasePageRange? where payload.count == 1:
            guard let numbers = pages[payload[0]]?.keys, let first = numbers.min(), let last = numbers.max() else {
                return DexcomPacket(code: ack, payload: [UInt8](repeating: 0xFF, count: 8))
            }
            return DexcomPacket(code: ack, payload: first.littleEndianBytes + last.littleEndianBytes)
        case .readDatabasePages? where payload.count == 6:
            let first = payload.u32le(at: 1)
            var bytes: [UInt8] = []
            for number in first..<(first + UInt32(payload[5])) {
                guard let page = pages[payload[0]]?[number] else {
                    return DexcomPacket(code: DexcomReplyCode.invalidParameter.rawValue)
                }
                bytes += page
            }
            return DexcomPacket(code: ack, payload: bytes)
        case .readSystemTime?:
            return DexcomPacket(code: ack, payload: systemTime.littleEndianBytes)
        case .readDisplayTimeOffset?:
            return DexcomPacket(code: ack, payload: displayTimeOffset.littleEndianBytes)
        default:
            return DexcomPacket(code: DexcomReplyCode.invalidCommand.rawValue)
        }
    }
}
