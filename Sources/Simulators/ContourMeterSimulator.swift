import Drivers
import Foundation
import Transport
import TransportReplay

/// A Contour meter in software (USB 1a79:6002, one HID interface with interrupt IN and OUT),
/// holding an ASTM E1381 transfer as the meters send it: the header frame, then ENQ; after the
/// host's ACK one frame per record (header again, results, terminator), each after the host's
/// ACK of the one before, then EOT. Everything it serves is synthetic; the record layouts are
/// those of ``ContourHeader`` and ``ContourResult``.
package final class ContourMeterSimulator: USBTransport {
    package let device: USBDeviceDescription
    /// The host's clock, read when a report is delivered.
    package var hostClock: () -> Date
    private var pending: [[UInt8]]
    private var outbox: [[UInt8]] = []

    /// A meter with serial `serial`, unit code `unit` (`U=0` mg/dL, `U=1` mmol/L), clock `clock`
    /// (`YYYYMMDDhhmm`) and result records `results` (`R|seq|^^^Glucose|value|unit^P||markers||time`).
    package init(serial: String, unit: Int, clock: String, results: [String], hostClock: @escaping () -> Date) {
        device = USBDeviceDescription(
            vendorID: 0x1A79, productID: 0x6002, bus: 3, address: 7, manufacturer: "Bayer", product: "Simulated Contour",
            serialNumber: nil,
            interfaces: [
                USBInterface(
                    number: 0, interfaceClass: USBInterface.classHID, interfaceSubclass: 0, interfaceProtocol: 0,
                    endpoints: [
                        USBEndpoint(address: 0x81, type: .interrupt, maxPacketSize: 64),
                        USBEndpoint(address: 0x01, type: .interrupt, maxPacketSize: 64),
                    ])
            ])
        self.hostClock = hostClock
        let header =
            "H|\\^&||sim|Bayer7390^01.24\\01.04^\(serial)^7403-|A=1^C=63^G=1^I=0200^R=0^S=1^U=\(unit)^V=10600^Z=1|\(results.count)||||||1|\(clock)"
        let records = [header] + results + ["L|1||N"]
        var frames: [[UInt8]] = []
        for (number, record) in records.enumerated() {
            frames.append(
                ASTMFrame(number: UInt8((number + 1) % 8), text: Array((record + "\r").utf8), isFinal: number == records.count - 1).encoded())
        }
        // The header announces the meter before its ENQ; the transfer then sends it again.
        pending = [frames[0] + [ASTMControl.enq.rawValue]] + frames + [[ASTMControl.eot.rawValue]]
        queueNext()
    }

    package func claimInterface(_ number: UInt8) throws(TransportError) {
        guard number == 0 else { throw .claimFailed(interface: number, reason: "the simulated meter has only interface 0") }
    }

    package func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        guard endpoint.address == 0x01 else { throw .transferFailed(endpoint: endpoint.address, reason: "not the OUT endpoint") }
        let payload = (try? ContourReport.payload(of: bytes, location: "from the host")).map(Array.init) ?? []
        if payload == [ASTMControl.ack.rawValue] { queueNext() }
    }

    package func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        throw .transferFailed(endpoint: 0, reason: "the simulated meter answers no control requests")
    }

    package func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        guard endpoint.address == 0x81 else { throw .transferFailed(endpoint: endpoint.address, reason: "not the IN endpoint") }
        guard !outbox.isEmpty else { throw .timeout(endpoint: endpoint.address) }
        return USBRead(bytes: Array(outbox.removeFirst().prefix(maxLength)), hostTime: hostClock())
    }

    package func close() {}

    private func queueNext() {
        guard !pending.isEmpty else { return }
        outbox += ContourReport.reports(carrying: pending.removeFirst())
    }

    /// Records a session with `meter` to `output` as a usbmon pcap, as `glucobridge import
    /// --record` does.
    package static func record(_ meter: ContourMeterSimulator, to output: URL) throws {
        let recorder = try RecordingUSBTransport(recording: meter, to: output, clock: meter.hostClock)
        _ = try ContourDriver.download(over: recorder, context: .fresh)
        try recorder.finish()
    }
}
