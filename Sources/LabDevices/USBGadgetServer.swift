import CaptureUSB
import Foundation
import Simulators
import Transport

#if canImport(Glibc)
    import Glibc
#endif

/// Faults a lab device makes once, after a number of replies (or of its own commands, see
/// ``CountsOwnCommands``), as only a kernel can show them to the host: the reader unplugged in the
/// middle of a download, a reader that stops answering, a stalled IN endpoint.
enum USBFault: String, CaseIterable {
    case unplug, silence, stall
}

/// A device model whose faults are keyed on commands of its own protocol rather than on replies:
/// a USB disk's host sends SCSI commands of its own (TEST UNIT READY, reads of the FAT area)
/// whenever it likes, so a count of replies does not fall at the same place twice.
protocol CountsOwnCommands {
    /// How many of the counted commands the model has taken.
    var commandsTaken: Int { get }
    /// What is counted, for the log: `READ RECORD commands`.
    var commandsCounted: String { get }
}

extension VerioMeterSimulator: CountsOwnCommands {
    var commandsTaken: Int { meter.recordCommands }
    var commandsCounted: String { "READ RECORD commands" }
}

/// A device model whose host writes must be read one transfer at a time, at the length each is
/// known to have.
protocol SizedOutTransfers {
    /// The length of the next transfer the host writes.
    var nextOutLength: Int { get }
}

extension VerioMeterSimulator: SizedOutTransfers {
    var nextOutLength: Int { server.pendingOutLength ?? 512 }
}

/// Serves a device model (any `USBTransport`: a simulator, or a capture's recorded device) as a
/// real USB device: what the host sends to the gadget's OUT endpoint goes to the model, and what
/// the model answers goes back on the IN endpoint. One request–answer turn per host write, as the
/// devices glucobridge reads work.
final class USBGadgetServer {
    /// The model's files: the data endpoints of a FunctionFS function, or a HID gadget node.
    enum Pipe {
        case functionFS(FunctionFS)
        case hidg(String)
    }

    let gadget: Gadget
    let pipe: Pipe
    let models: ModelSupply
    /// The host's configurations of a FunctionFS device (nil for a HID gadget, whose UDC state
    /// is polled instead).
    let sessions: HostSessions?
    var fault: (kind: USBFault, after: Int)?
    private var replies = 0
    private let log: (String) -> Void

    init(
        gadget: Gadget, pipe: Pipe, sessions: HostSessions? = nil, fault: (USBFault, Int)?, log: @escaping (String) -> Void,
        firstModel: any USBTransport, makeModel: @escaping () throws -> any USBTransport
    ) {
        self.gadget = gadget
        self.pipe = pipe
        self.sessions = sessions
        self.fault = fault.map { (kind: $0.0, after: $0.1) }
        self.log = log
        models = ModelSupply(first: firstModel, makeModel)
    }

    /// Serves until the process is stopped. A fresh model answers after every plug-in, as a
    /// reader's session starts anew when it is plugged in again; it is taken once per plug-in
    /// (made ahead by ``ModelSupply``), so the first request after a plug-in is read at once.
    func run() throws -> Never {
        var model = try models.take()
        var session = sessions?.current ?? 0
        // Whether the model has been sent a request or has answered: a fresh model is taken only
        // to replace one that has.
        var used = false
        guard let (outEndpoint, inEndpoint) = Self.endpoints(of: model.device) else {
            throw LabDeviceError("the device model \(model.device.idString) has no IN endpoint to serve")
        }
        let (readFD, writeFD) = try files(outEndpoint: outEndpoint, inEndpoint: inEndpoint)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var silent = false
        /// A fresh model for a new plug-in or session: it has said nothing, and it answers.
        func takeFreshModel() throws {
            model = try models.take()
            silent = false
            used = false
        }
        /// Sends what the model has to say (its answers, or what it says first, as a Contour
        /// meter announces itself), making the fault when its turn comes.
        func drain() throws {
            while !silent {
                let answer: USBRead
                do {
                    answer = try model.read(from: inEndpoint, maxLength: 1 << 16, timeout: .zero)
                } catch .timeout {
                    return
                } catch {
                    log("the model ended the session: \(error)")
                    try gadget.unplug()
                    try takeFreshModel()
                    return
                }
                let counted = (model as? CountsOwnCommands).map { ($0.commandsTaken, $0.commandsCounted) } ?? (replies, "replies")
                if let fault, counted.0 >= fault.after {
                    self.fault = nil
                    try make(fault.kind, after: "\(counted.0) \(counted.1)", writeFD: writeFD)
                    // A device that stopped answering stays silent until it is plugged in again.
                    if fault.kind == .unplug {
                        try takeFreshModel()
                        // A device that speaks first (an Accu-Chek's association request) says
                        // it once it is plugged in again: the write waits for the host, which
                        // the read of its requests below would not.
                        continue
                    }
                    silent = true
                    return
                }
                // What a device says before the host has configured it waits until it has: a
                // Contour meter announces itself as soon as it is plugged in.
                var written = answer.bytes.withUnsafeBytes { write(writeFD, $0.baseAddress, $0.count) }
                while written < 0, errno == ESHUTDOWN {
                    usleep(20_000)
                    written = answer.bytes.withUnsafeBytes { write(writeFD, $0.baseAddress, $0.count) }
                }
                if written != answer.bytes.count { log("the host did not take an answer: \(String(cString: strerror(errno)))") }
                replies += 1
                used = true
            }
        }
        var configured = false
        while true {
            try drain()
            if case .hidg = pipe {
                // A HID gadget's node does not report an unplug: the UDC's state does. A fresh
                // model answers after the host configures the device again.
                var entry = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 200) > 0 else {
                    let now = udcState() == "configured"
                    if configured, !now, used { try takeFreshModel() }
                    configured = now
                    continue
                }
                configured = true
            }
            // A Bulk-Only disk's host sends a command's data right after its wrapper, with no
            // short packet between: each is read at its own length.
            let wanted = min(buffer.count, (model as? SizedOutTransfers)?.nextOutLength ?? buffer.count)
            let count = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress, wanted) }
            guard count >= 0 else {
                // Unplugged or not yet enabled: wait for the host to take the device again.
                let code = errno
                if code != EINTR { usleep(20_000) }
                if code == ESHUTDOWN || code == ENODEV, used { try takeFreshModel() }
                continue
            }
            // The host configured the device again while the loop was not reading (it saw no
            // unplug): this request starts a new session too.
            if let current = sessions?.current, current != session {
                session = current
                if used { try takeFreshModel() }
            }
            used = true
            let request = Array(buffer[0..<count])
            if silent { continue }
            do {
                if let outEndpoint {
                    try model.write(request, to: outEndpoint, timeout: .seconds(1))
                } else {
                    let setup = HIDChannel.setReport(interface: model.device.interfaces.first?.number ?? 0, length: request.count)
                    _ = try model.control(setup, data: request, timeout: .seconds(1))
                }
            } catch {
                log("the model refused a request of \(count) bytes: \(error)")
            }
        }
    }

    /// The UDC's state as the kernel reports it: `configured` while a host uses the device.
    private func udcState() -> String {
        let path = "/sys/class/udc/\(gadget.udc)/state"
        return (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    /// Makes `fault` now, `after` so many replies or commands.
    private func make(_ fault: USBFault, after: String, writeFD: Int32) throws {
        switch fault {
        case .unplug:
            log("fault: unplugging after \(after)")
            try gadget.unplug()
        case .silence:
            log("fault: no answer after \(after)")
        case .stall:
            log("fault: stalling the IN endpoint after \(after)")
            // A read on an IN endpoint's file halts that endpoint (FunctionFS).
            var byte: UInt8 = 0
            _ = read(writeFD, &byte, 1)
        }
    }

    /// The OUT endpoint the host writes requests to (nil for a HID device without one, which is
    /// sent SET_REPORT) and the IN endpoint answers go back on: bulk first, else interrupt.
    static func endpoints(of device: USBDeviceDescription) -> (USBEndpoint?, USBEndpoint)? {
        let all = device.interfaces.flatMap(\.endpoints)
        for type in [USBTransferType.bulk, .interrupt] {
            for interface in device.interfaces {
                guard let inward = interface.endpoints.first(where: { $0.type == type && $0.direction == .in }) else { continue }
                let outward = interface.endpoints.first { $0.type == type && $0.direction == .out }
                if outward != nil || type == .interrupt { return (outward, inward) }
            }
        }
        return all.first { $0.direction == .in }.map { (nil, $0) }
    }

    private func files(outEndpoint: USBEndpoint?, inEndpoint: USBEndpoint) throws -> (Int32, Int32) {
        switch pipe {
        case .functionFS(let function):
            guard let outEndpoint else { throw LabDeviceError("a FunctionFS device needs an OUT endpoint") }
            return (try function.open(outEndpoint), try function.open(inEndpoint))
        case .hidg(let path):
            var fd: Int32 = -1
            for _ in 0..<200 {
                fd = open(path, O_RDWR)
                if fd >= 0 { break }
                usleep(50_000)
            }
            guard fd >= 0 else { throw LabDeviceError.posix("open", path) }
            return (fd, fd)
        }
    }
}
