import CaptureBluetooth
import Foundation
import TestSupport
import Transport

/// Writes a btsnoop file (datalink 1002) of one LE connection from a list of ATT PDUs, each 5 ms
/// after the previous one, the way the replay tests need small captures with one thing wrong.
struct CaptureScript {
    var peer = BluetoothAddress("C0:11:22:33:44:55")!
    var handle: UInt16 = 0x0040
    var start = Date(timeIntervalSince1970: 1_705_305_600)
    /// `"> 0a1500"` is sent by the host, `"< 0b01"` comes from the device.
    var lines: [String]
    var disconnectReason: UInt8? = 0x13

    func write(named name: String = "script.btsnoop") throws -> URL {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent(name)
        let writer = try BTSnoopWriter(url: url)
        let opening = LEConnectionComplete(
            status: 0, handle: handle, role: .central, peerAddressType: .random, peerAddress: peer, interval: 0x27, latency: 0,
            supervisionTimeout: 0x1F4, isEnhanced: false)
        try writer.append(.event(code: HCIEvent.leMetaCode, parameters: opening.legacyEventParameters), direction: .received, at: start)
        var time = start
        for line in lines {
            time = time.addingTimeInterval(0.005)
            let direction: HCIDirection = line.hasPrefix(">") ? .sent : .received
            let frame = L2CAPFrame(channel: L2CAPFrame.attChannel, payload: hexBytes(String(line.dropFirst().filter { $0 != " " })))
            for packet in frame.aclPackets(handle: handle, direction: direction) {
                try writer.append(.acl(packet), direction: direction, at: time)
            }
        }
        if let disconnectReason {
            try writer.append(
                .event(code: HCIEvent.disconnectionCompleteCode, parameters: [0, UInt8(handle & 0xFF), UInt8(handle >> 8), disconnectReason]),
                direction: .received, at: time.addingTimeInterval(0.1))
        }
        try writer.close()
        return url
    }
}
