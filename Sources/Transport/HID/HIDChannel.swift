/// A USB HID interface used as a report pipe, as meters that speak over HID use it: reports come
/// from the device on the interface's interrupt IN endpoint; the host's go out on the interrupt
/// OUT endpoint when the interface has one, and otherwise as a HID SET_REPORT (output report)
/// control transfer on endpoint 0 — some readers, such as the FreeStyle InsuLinx, have no OUT
/// endpoint.
///
/// Claiming goes through `USBTransport.claimInterface`, which detaches the kernel's HID driver
/// (`usbhid`) and gives it back when the transport closes.
package struct HIDChannel {
    package let transport: any USBTransport
    package let interface: USBInterface
    package let inEndpoint: USBEndpoint
    /// nil when the interface has no OUT endpoint: reports are then sent with SET_REPORT.
    package let outEndpoint: USBEndpoint?

    /// The HID class request SET_REPORT.
    package static let setReportRequest: UInt8 = 0x09
    /// Host to device, class request, recipient interface.
    package static let classInterfaceOut: UInt8 = 0x21
    /// wValue high byte: report type 2, output.
    package static let outputReportType: UInt8 = 0x02

    /// The HID interface of `transport`'s device: the first HID-class interface with an interrupt
    /// IN endpoint, else the first interface with any IN endpoint (a capture without descriptors
    /// only tells the endpoints its traffic used). Nil when there is none. Nothing is claimed yet.
    package init?(transport: any USBTransport) {
        let interfaces = transport.device.interfaces
        guard
            let hid = interfaces.first(where: {
                $0.interfaceClass == USBInterface.classHID && $0.endpoints.contains { $0.type == .interrupt && $0.direction == .in }
            }) ?? interfaces.first(where: { $0.endpoints.contains { $0.direction == .in } }),
            let inward = hid.endpoints.first(where: { $0.direction == .in && $0.type == .interrupt })
                ?? hid.endpoints.first(where: { $0.direction == .in })
        else {
            return nil
        }
        self.transport = transport
        interface = hid
        inEndpoint = inward
        outEndpoint = hid.endpoints.first { $0.direction == .out && $0.type != .control }
    }

    /// Takes the interface from the kernel's HID driver.
    package func claim() throws(TransportError) {
        try transport.claimInterface(interface.number)
    }

    /// The SET_REPORT request that sends an output report of `length` bytes (report id 0) to the
    /// interface `interface`.
    package static func setReport(interface: UInt8, length: Int) -> USBControlSetup {
        USBControlSetup(
            requestType: classInterfaceOut, request: setReportRequest, value: UInt16(outputReportType) << 8,
            index: UInt16(interface), length: UInt16(clamping: length))
    }

    /// Sends one report: to the OUT endpoint, or with SET_REPORT when there is none.
    package func send(_ report: [UInt8], timeout: Duration) throws(TransportError) {
        if let outEndpoint {
            try transport.write(report, to: outEndpoint, timeout: timeout)
        } else {
            _ = try transport.control(Self.setReport(interface: interface.number, length: report.count), data: report, timeout: timeout)
        }
    }

    /// Receives one report of at most `maxLength` bytes from the IN endpoint.
    ///
    /// Zero-length completions are passed over: a device whose report fills the endpoint's packet
    /// may end the transfer with a zero-length packet (the Linux f_hid gadget does, since kernel
    /// commit ed6f727c575b), which carries no report. A few in a row at most are skipped, so a
    /// capture of nothing else still ends.
    package func receive(maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        var read = try transport.read(from: inEndpoint, maxLength: maxLength, timeout: timeout)
        for _ in 0..<Self.zeroLengthPacketsSkipped where read.bytes.isEmpty {
            read = try transport.read(from: inEndpoint, maxLength: maxLength, timeout: timeout)
        }
        return read
    }

    /// How many zero-length completions in a row `receive` passes over.
    static let zeroLengthPacketsSkipped = 4
}
