import Drivers
import Foundation
import Transport
import TransportReplay

/// A long G6 receiver history downloaded the way another program reads it, recorded as a usbmon
/// pcap: the benchmark's and the large-dump tests' input.
///
/// The other program asks what glucobridge asks (identity, clocks, the EGV page range, then the
/// EGV pages one at a time from the newest back to the first) but never reads the meter
/// partition, so a conversation replay stops at glucobridge's meter page-range request and the
/// capture is decoded passively.
package enum DexcomVendorDump {
    /// The receiver's system clock at the end of every generated history.
    package static let lastSystemSeconds: UInt32 = 560_000_000
    /// Seconds between the receiver's display clock and its system clock.
    package static let displayOffset: Int32 = -25_200
    package static let serial = "SMBENCH01"

    /// The generated history of `days` days: 288 records a day, one in every 5,000 (from the
    /// 1,000th) a special value rather than a reading.
    package static func records(days: Int) -> (count: Int, special: Set<Int>) {
        let count = days * 288
        return (count, Set(stride(from: 999, to: count, by: 5_000)))
    }

    /// The number of readings (records that are not special values) in `days` days.
    package static func readings(days: Int) -> Int {
        let (count, special) = records(days: days)
        return count - special.count
    }

    /// Records the download of a `days`-day G6 history to `url`.
    package static func record(days: Int, to url: URL) throws {
        let (count, special) = records(days: days)
        let egv = DexcomPageBuilder.generatedEGVPages(
            count: count, lastSystemSeconds: lastSystemSeconds, displayOffset: displayOffset, layout: .g6, special: special)
        let receiver = DexcomReceiverSimulator(
            pages: [
                DexcomPartition.manufacturingData.rawValue: [0: DexcomPageBuilder.manufacturingPage(serial: serial, systemSeconds: 1)],
                DexcomPartition.egvData.rawValue: egv,
            ],
            systemTime: lastSystemSeconds + 60, displayTimeOffset: displayOffset,
            hostClock: { Date(timeIntervalSince1970: TimeInterval(dexcomEpochOffsetFrom1970) + TimeInterval(lastSystemSeconds) + 61) })
        receiver.egvLayout = .g6
        receiver.firmwareHeader =
            "<FirmwareHeader SchemaVersion='1' ApiVersion='3.1.0.0' ProductId='G6Receiver' ProductName='Dexcom G6 Receiver' FirmwareVersion='5.0.1.043'/>"
        let recorder = try RecordingUSBTransport(recording: receiver, to: url)
        let link = Link(transport: recorder)
        _ = try link.ask(.ping)
        _ = try link.ask(.readFirmwareHeader)
        _ = try link.ask(.readDatabasePartitionInfo)
        _ = try link.ask(.readDatabasePageRange, [DexcomPartition.manufacturingData.rawValue])
        _ = try link.ask(.readDatabasePages, [DexcomPartition.manufacturingData.rawValue] + UInt32(0).littleEndianBytes + [1])
        _ = try link.ask(.readDisplayTimeOffset)
        _ = try link.ask(.readSystemTime)
        let range = try link.ask(.readDatabasePageRange, [DexcomPartition.egvData.rawValue])
        let first = range.u32le(at: 0)
        let last = range.u32le(at: 4)
        for page in stride(from: last, through: first, by: -1) {
            _ = try link.ask(.readDatabasePages, [DexcomPartition.egvData.rawValue] + page.littleEndianBytes + [1])
        }
        try recorder.finish()
    }

    /// Request and reply over the simulated receiver's bulk endpoints.
    private struct Link {
        let transport: any USBTransport
        let out = USBEndpoint(address: 0x02, type: .bulk, maxPacketSize: 64)
        let inward = USBEndpoint(address: 0x83, type: .bulk, maxPacketSize: 64)

        /// The payload of the acknowledged reply to `command`.
        func ask(_ command: DexcomCommand, _ payload: [UInt8] = []) throws -> [UInt8] {
            try transport.write(DexcomPacket.request(command, payload: payload), to: out, timeout: .seconds(1))
            var assembler = DexcomPacketAssembler(location: WireLocation(message: "reply to \(command)"))
            while true {
                if let reply = try assembler.nextPacket() {
                    guard reply.code == DexcomReplyCode.ack.rawValue else {
                        throw DexcomError.replyRejected(command: "\(command)", location: "from the receiver", code: "code \(reply.code)")
                    }
                    return reply.payload
                }
                assembler.append(try transport.read(from: inward, maxLength: 2176, timeout: .seconds(1)).bytes)
            }
        }
    }
}
