import CaptureUSB
import Foundation
import Transport

/// Wraps a transport and writes everything that crosses it to a usbmon pcap (link type 220) that
/// Wireshark opens and `glucobridge replay` plays back. The device's descriptors are written
/// first, as the GET_DESCRIPTOR exchanges of an enumeration, so a replay knows the device.
public final class RecordingUSBTransport: USBTransport {
    package let wrapped: any USBTransport
    private let writer: UsbmonPcapWriter
    private let clock: () -> Date
    private var failure: CaptureError?

    public var device: USBDeviceDescription { wrapped.device }

    /// Starts a recording of `transport` into a new file at `url`. `clock` stamps submissions and
    /// completions that the transport does not stamp itself.
    public init(recording transport: any USBTransport, to url: URL, clock: @escaping () -> Date = Date.init) throws(TransportError) {
        wrapped = transport
        self.clock = clock
        let device = transport.device
        do {
            writer = try UsbmonPcapWriter(url: url, bus: device.bus, device: device.address)
        } catch {
            throw .recordingFailed("\(url.path): \(error)")
        }
        let now = clock()
        let descriptors: [(USBControlSetup, [UInt8])] = [
            (USBDescriptors.getDeviceDescriptor, USBDescriptors.deviceDescriptor(for: device)),
            {
                let config = USBDescriptors.configurationDescriptor(for: device)
                return (USBDescriptors.getConfigurationDescriptor(length: UInt16(config.count)), config)
            }(),
        ]
        for (setup, data) in descriptors {
            append(
                USBTransfer(packetNumber: 0, endpoint: 0x80, type: .control, direction: .in, setup: setup.bytes, data: data),
                submittedAt: now, completedAt: now, requestedLength: Int(setup.length))
        }
        if let failure { throw .recordingFailed("\(url.path): \(failure)") }
    }

    public func claimInterface(_ number: UInt8) throws(TransportError) {
        try wrapped.claimInterface(number)
    }

    public func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        let submitted = clock()
        do {
            try wrapped.write(bytes, to: endpoint, timeout: timeout)
            record(endpoint, .out, bytes, status: 0, submitted: submitted, completed: clock())
        } catch {
            record(endpoint, .out, bytes, status: Self.status(for: error), submitted: submitted, completed: clock())
            throw error
        }
        try checkRecording()
    }

    public func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        let submitted = clock()
        let read: USBRead
        do {
            read = try wrapped.read(from: endpoint, maxLength: maxLength, timeout: timeout)
        } catch {
            record(endpoint, .in, [], status: Self.status(for: error), submitted: submitted, completed: clock(), requested: maxLength)
            throw error
        }
        record(endpoint, .in, read.bytes, status: 0, submitted: submitted, completed: read.hostTime ?? clock(), requested: maxLength)
        try checkRecording()
        return read
    }

    public func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        let submitted = clock()
        let direction = setup.direction
        let endpoint: UInt8 = direction == .in ? 0x80 : 0x00
        let read: USBRead
        do {
            read = try wrapped.control(setup, data: data, timeout: timeout)
        } catch {
            append(
                USBTransfer(
                    packetNumber: 0, endpoint: endpoint, type: .control, direction: direction, setup: setup.bytes,
                    data: direction == .in ? [] : data, status: Self.status(for: error)),
                submittedAt: submitted, completedAt: clock(), requestedLength: Int(setup.length))
            throw error
        }
        append(
            USBTransfer(
                packetNumber: 0, endpoint: endpoint, type: .control, direction: direction, setup: setup.bytes,
                data: direction == .in ? read.bytes : data),
            submittedAt: submitted, completedAt: read.hostTime ?? clock(), requestedLength: Int(setup.length))
        try checkRecording()
        return read
    }

    /// Closes the device and finishes the file.
    public func close() {
        wrapped.close()
        do {
            try writer.close()
        } catch {
            failure = failure ?? error
        }
    }

    /// Finishes the file and reports whether every record was written.
    public func finish() throws(TransportError) {
        close()
        try checkRecording()
    }

    private func record(
        _ endpoint: USBEndpoint, _ direction: USBDirection, _ data: [UInt8], status: Int32, submitted: Date, completed: Date, requested: Int? = nil
    ) {
        append(
            USBTransfer(packetNumber: 0, endpoint: endpoint.address, type: endpoint.type, direction: direction, data: data, status: status),
            submittedAt: submitted, completedAt: completed, requestedLength: requested)
    }

    private func append(_ transfer: USBTransfer, submittedAt: Date, completedAt: Date, requestedLength: Int?) {
        guard failure == nil else { return }
        do {
            try writer.append(transfer, submittedAt: submittedAt, completedAt: completedAt, requestedLength: requestedLength)
        } catch {
            failure = error
        }
    }

    private func checkRecording() throws(TransportError) {
        if let failure { throw .recordingFailed(failure.description) }
    }

    /// The usbmon status a failed transfer shows: -110 timed out, -108 device gone, -32 stall, -71 other.
    static func status(for error: TransportError) -> Int32 {
        switch error {
        case .timeout: -110
        case .disconnected: -108
        case .transferFailed(_, let reason) where reason.contains("stall"): -32
        default: -71
        }
    }
}
