import Foundation
import Model
import Pipeline
import Transport

/// Ascensia / Bayer Contour meters: ASTM E1381/E1394 records in `ABC` HID reports. Read-only:
/// the host only ever sends EOT, ACK and NAK, so the meter is never put in command mode.
package enum ContourDriver: USBDeviceDriver {
    package static let family: DeviceFamily = "contour"
    package static let products = [
        USBProduct(vendorID: 0x1A79, productID: 0x6002, name: "Contour USB"),
        USBProduct(vendorID: 0x1A79, productID: 0x7410, name: "Contour Next USB"),
        USBProduct(vendorID: 0x1A79, productID: 0x7350, name: "Contour Next"),
        USBProduct(vendorID: 0x1A79, productID: 0x7800, name: "Contour Next One / Plus One"),
        USBProduct(vendorID: 0x1A79, productID: 0x7900, name: "Ascensia Contour Next"),
        USBProduct(vendorID: 0x1A79, productID: 0x7950, name: "Contour Plus Blue"),
    ]
    package static let capabilities: DeviceCapabilities = [.glucose, .storedHistory, .passiveDecode]
    package static let summary = """
        glucose results (strip), read-only: the host only sends EOT/ACK/NAK, never command mode; control-solution results are \
        counted, not stored; `<`/`>` become LO/HI; meal and activity markers are kept as the reading's note
        """

    package static let readTimeout: Duration = .seconds(2)
    /// EOTs sent to wake a meter that does not speak first.
    static let wakeAttempts = 5
    /// NAKs sent for one damaged frame before giving up.
    static let retries = 3
    /// The most HID reports one transfer may take. The largest Contour memory holds 1,000 results
    /// (Contour Next One: 800), one record each; a frame of at most 247 bytes (ASTM E1381 §6.3)
    /// spans at most 5 reports, so a whole memory is under 5,100 reports with the header, patient
    /// and terminator records, the link control bytes and a few retransmissions. A meter that
    /// keeps talking past twice that is not ending its transfer.
    static let maximumReports = 10_000

    package static func download(over transport: any USBTransport, context: DownloadContext) throws(ContourError) -> GlucoseDownload {
        try readSession(over: transport, progress: context.progress).normalised()
    }

    package static func decode(recorded device: RecordedUSBDevice) throws(ContourError) -> GlucoseDownload {
        var session = ContourSession()
        var decoder = ASTMLinkDecoder()
        for transfer in device.transfers where transfer.direction == .in && (transfer.type == .interrupt || transfer.type == .bulk) {
            let location = WireLocation(packet: transfer.packetNumber)
            if transfer.status != 0 { throw ContourError.transport(.recorded(status: transfer.status, in: transfer)) }
            decoder.append(try ContourReport.payload(of: transfer.data, location: location))
            while let event = try decoder.next(location: location) {
                if case .frame(let frame) = event { try session.absorb(frame, hostTime: transfer.timestamp) }
            }
        }
        return try session.normalised()
    }

    /// Holds the transfer: waits for (or wakes) the meter's ENQ, then acknowledges every frame
    /// until the meter's EOT after the terminator record.
    package static func readSession(over transport: any USBTransport, progress: DownloadProgress = .silent) throws(ContourError) -> ContourSession {
        let link = try ContourLink(transport: transport)
        var session = ContourSession()
        var decoder = ASTMLinkDecoder()
        var established = false
        var wakes = 0
        var naks = 0
        var reports = 0
        while true {
            reports += 1
            guard reports <= maximumReports else {
                throw .incompleteSession(
                    reason: "the meter sent \(maximumReports) reports without ending its transfer, more than any Contour memory holds")
            }
            let read: USBRead
            do {
                read = try link.readReport()
            } catch .timeout where !established && wakes < wakeAttempts {
                wakes += 1
                try link.send(.eot)
                continue
            } catch {
                throw .transport(error)
            }
            decoder.append(try ContourReport.payload(of: read.bytes, location: "from the meter"))
            do {
                while let event = try decoder.next(location: "from the meter") {
                    switch event {
                    case .control(.enq):
                        established = true
                        try link.send(.ack)
                    case .control(.eot) where established && session.terminated:
                        return session
                    case .control:
                        break
                    case .frame(let frame):
                        // A frame sent before the meter's ENQ (its header, as it announces
                        // itself) is kept but not acknowledged: only the transfer is.
                        try session.absorb(frame, hostTime: read.hostTime)
                        progress.report("results", done: session.results.count, total: session.header?.resultCount)
                        naks = 0
                        if established { try link.send(.ack) }
                    }
                }
            } catch .frameChecksumMismatch where naks < retries {
                // Ask for the frame again; what was buffered after it is resent too.
                naks += 1
                decoder = ASTMLinkDecoder()
                try link.send(.nak)
            }
        }
    }
}

/// The meter's HID interface: interrupt IN for reports, interrupt OUT (or SET_REPORT) for ours.
struct ContourLink {
    let channel: HIDChannel

    init(transport: any USBTransport) throws(ContourError) {
        guard let channel = HIDChannel(transport: transport) else {
            throw .badReport(
                location: WireLocation(place: "on \(transport.device.idString)"), reason: "the device has no HID interface with an IN endpoint")
        }
        self.channel = channel
        do {
            try channel.claim()
        } catch {
            throw .transport(error)
        }
    }

    func readReport() throws(TransportError) -> USBRead {
        try channel.receive(maxLength: ContourReport.size, timeout: ContourDriver.readTimeout)
    }

    /// Sends one link control byte; the only bytes the host ever sends.
    func send(_ control: ASTMControl) throws(ContourError) {
        for report in ContourReport.reports(carrying: [control.rawValue]) {
            do {
                try channel.send(report, timeout: ContourDriver.readTimeout)
            } catch {
                throw .transport(error)
            }
        }
    }
}
