import CBluetooth
import CaptureBluetooth
import Drivers
import Foundation
import Simulators
import Transport
import TransportReplay

#if canImport(Glibc)
    import Glibc
#endif

/// Faults a lab peripheral makes once: the link dropped after a number of PDUs it sent (before
/// the client's discovery ends), or after a number of the values it sent (notifications and
/// indications: in the middle of a Record Access Control Point transfer).
struct BLEFault {
    enum Counted {
        case pdus
        case values
    }

    var after: Int
    var counted: Counted

    /// Whether `pdu` counts towards the fault.
    func counts(_ pdu: [UInt8]) -> Bool {
        switch counted {
        case .pdus: true
        case .values: pdu.first == ATTOpcode.handleValueNotification.rawValue || pdu.first == ATTOpcode.handleValueIndication.rawValue
        }
    }
}

/// Serves a simulated peripheral's attribute table on a real Bluetooth LE controller: an L2CAP
/// socket bound to the ATT fixed channel (CID 4) of controller `index` accepts the central's
/// connection; each PDU the central sends goes to the model and its answers go back. Once the
/// central has subscribed to something and is idle, the model's scheduled notifications and
/// indications follow, as fast as the link takes them; when the schedule is done the peripheral
/// disconnects, as a band taken off does.
final class BLEPeripheralServer {
    static let attChannel: UInt16 = 4

    let index: Int32
    let model: any PeripheralModel
    var fault: BLEFault?
    /// What the device sends on its own goes out back to back, as fast as the link takes it
    /// (the socket's send blocks while the controller has no room), not one per 7.5 ms.
    var unpaced = false
    private let log: (String) -> Void

    init(index: Int32, model: any PeripheralModel, fault: BLEFault?, log: @escaping (String) -> Void) {
        self.index = index
        self.model = model
        self.fault = fault
        self.log = log
    }

    /// The controller's own address.
    func address() throws -> bdaddr_t {
        var address = bdaddr_t()
        guard hci_devba(index, &address) == 0 else { throw LabDeviceError.posix("hci_devba", "hci\(index)") }
        return address
    }

    /// Accepts one connection and serves it until either side ends it.
    func run() throws {
        let listener = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue), BTPROTO_L2CAP)
        guard listener >= 0 else { throw LabDeviceError.posix("socket", "L2CAP") }
        defer { close(listener) }
        var local = sockaddr_l2()
        local.l2_family = sa_family_t(AF_BLUETOOTH)
        local.l2_bdaddr = try address()
        local.l2_cid = Self.attChannel.littleEndian
        local.l2_bdaddr_type = UInt8(BDADDR_LE_PUBLIC)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_l2>.size)) }
        }
        guard bound == 0 else { throw LabDeviceError.posix("bind", "L2CAP ATT on hci\(index)") }
        guard listen(listener, 1) == 0 else { throw LabDeviceError.posix("listen", "L2CAP ATT on hci\(index)") }
        log("listening for a central on hci\(index)")
        let link = accept(listener, nil, nil)
        guard link >= 0 else { throw LabDeviceError.posix("accept", "L2CAP ATT on hci\(index)") }
        defer { close(link) }
        log("central connected")
        try serve(link)
    }

    /// Waits until the socket's send queue is empty (TIOCOUTQ reports the whole send buffer
    /// free), at most 10 s: closing the channel earlier would drop notifications still queued in
    /// the kernel, which a device taken off after sending them does not do.
    private func flush(_ link: Int32) {
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(link, SOL_SOCKET, SO_SNDBUF, &size, &length) == 0 else { return }
        for _ in 0..<500 {
            var free: Int32 = 0
            guard ioctl(link, UInt(TIOCOUTQ), &free) == 0, free < size else { return }
            usleep(20_000)
        }
        log("the send queue did not empty within 10 s")
    }

    private func serve(_ link: Int32) throws {
        var sent = 0
        var subscribed = false
        var buffer = [UInt8](repeating: 0, count: 1024)
        func send(_ pdu: [UInt8]) -> Bool {
            if let fault, fault.counts(pdu), sent >= fault.after {
                log(
                    "fault: dropping the link after \(sent) \(fault.counted == .pdus ? "PDUs" : "values"), before \(Hex.encode(Array(pdu.prefix(3))))"
                )
                return false
            }
            let written = pdu.withUnsafeBytes { Glibc.send(link, $0.baseAddress, $0.count, 0) }
            if fault?.counts(pdu) ?? true { sent += 1 }
            return written == pdu.count
        }
        while true {
            var entry = pollfd(fd: link, events: Int16(POLLIN), revents: 0)
            // Once the central listens, what the device sends on its own goes out one PDU per
            // 7.5 ms of quiet at most, the shortest LE connection interval: the controllers
            // btvirt emulates have no air time, and a burst would overrun the central's socket.
            let ready = poll(&entry, 1, subscribed ? (unpaced ? 0 : 8) : 2000)
            if ready < 0 {
                if errno == EINTR { continue }
                throw LabDeviceError.posix("poll", "the ATT link")
            }
            if ready > 0 {
                let count = buffer.withUnsafeMutableBytes { recv(link, $0.baseAddress, $0.count, 0) }
                guard count > 0 else {
                    log("the central disconnected")
                    return
                }
                for answer in model.answers(to: Array(buffer[0..<count])) {
                    guard send(answer) else { return }
                }
                subscribed = model.isStreaming
                continue
            }
            guard subscribed else { continue }
            // The central is idle: what the device sends on its own next, or the end of the session.
            guard let next = model.nextOnItsOwn() else { continue }
            switch next {
            case .pdu(let bytes):
                guard send(bytes) else { return }
            case .end:
                log("the session is done after \(sent) PDUs: disconnecting once what was sent has left")
                flush(link)
                return
            }
        }
    }
}

/// What a lab peripheral serves: answers to the central's PDUs, and what it sends on its own.
protocol PeripheralModel: AnyObject {
    /// The PDUs that answer `pdu` (none for a command or a confirmation).
    func answers(to pdu: [UInt8]) -> [[UInt8]]
    /// Whether the central has asked for what the device sends on its own (a subscription).
    var isStreaming: Bool { get }
    /// What the device sends next on its own while the central is idle: a PDU, nothing yet, or
    /// the end of the session.
    func nextOnItsOwn() -> PeripheralEmission?
}

enum PeripheralEmission {
    case pdu([UInt8])
    case end
}

extension SimulatedPeripheral: PeripheralModel {
    func answers(to pdu: [UInt8]) -> [[UInt8]] {
        try? send(pdu)
        var answers: [[UInt8]] = []
        while let answer = takeAnswer() { answers.append(answer) }
        return answers
    }

    var isStreaming: Bool { hasSubscriptions }

    func nextOnItsOwn() -> PeripheralEmission? {
        do {
            return try receive(timeout: .zero).map { .pdu($0.bytes) }
        } catch {
            return .end
        }
    }
}

/// A captured connection's device side as a peripheral: each PDU the central sends is matched to
/// the capture's, and the device's recorded answers, notifications and indications follow.
final class CapturedPeripheral: PeripheralModel {
    let replay: ReplayATTBearer
    /// Recorded device PDUs due but not sent yet, in capture order.
    private var due: [[UInt8]] = []
    private var ended = false

    init(_ replay: ReplayATTBearer) {
        self.replay = replay
    }

    /// The recorded answer to `pdu` at once; the notifications and indications that followed it
    /// in the capture are left for `nextOnItsOwn`, paced as the device sends on its own.
    func answers(to pdu: [UInt8]) -> [[UInt8]] {
        do {
            try replay.send(pdu)
        } catch {
            // Not in the capture: refused as a device that does not support it would.
            let handle: UInt16 = pdu.count >= 3 ? UInt16(pdu[1]) | UInt16(pdu[2]) << 8 : 0
            return [ATTPDU.errorResponse(request: pdu.first ?? 0, handle: handle, error: .requestNotSupported).bytes]
        }
        fill()
        var answers: [[UInt8]] = []
        while let first = due.first, ATTOpcode(rawValue: first.first ?? 0)?.kind == .response {
            answers.append(due.removeFirst())
        }
        return answers
    }

    /// A capture's notifications follow whenever they are due: the replay knows when.
    var isStreaming: Bool { true }

    func nextOnItsOwn() -> PeripheralEmission? {
        fill()
        if !due.isEmpty { return .pdu(due.removeFirst()) }
        return ended ? .end : nil
    }

    /// Takes every device PDU the replay has due.
    private func fill() {
        while !ended {
            do {
                guard let next = try replay.receive(timeout: .zero) else { return }
                due.append(next.bytes)
            } catch {
                ended = true
            }
        }
    }
}

/// A device that sends nothing on its own, whose stored records the central asks for through its
/// RACP (the answers, record notifications included, follow each write at once). It stays
/// connected until the central leaves; with `leavesAfter`, it leaves once it has sent the answer
/// that ends its work, as a meter does when its records are read (and the lab's CGM, which has no
/// live readings to send, so that the central does not wait out its minute of quiet).
final class StayingPeripheral: PeripheralModel {
    let base: any PeripheralModel
    let leavesAfter: (([UInt8]) -> Bool)?
    private var done = false

    init(_ base: any PeripheralModel, leavesAfter: (([UInt8]) -> Bool)? = nil) {
        self.base = base
        self.leavesAfter = leavesAfter
    }

    func answers(to pdu: [UInt8]) -> [[UInt8]] {
        let answers = base.answers(to: pdu)
        if let leavesAfter, answers.contains(where: leavesAfter) { done = true }
        return answers
    }

    var isStreaming: Bool { done }
    func nextOnItsOwn() -> PeripheralEmission? { done ? .end : nil }

    /// Whether `pdu` ends a Record Access Control Point transfer (Bluetooth SIG, Record Access
    /// Control Point): an indication of the response code (0x06, operator null) to "report stored
    /// records" (0x01), or of a number of stored records (0x05) that is zero.
    static func endsRACPTransfer(_ pdu: [UInt8]) -> Bool {
        guard pdu.first == ATTOpcode.handleValueIndication.rawValue, pdu.count >= 7 else { return false }
        let value = pdu[3...]
        return value.starts(with: [0x06, 0x00, 0x01]) || value.elementsEqual([0x05, 0x00, 0x00, 0x00])
    }
}

/// A heart-rate band that, once the central subscribes, notifies Heart Rate Measurements back to
/// back for `seconds` of wall time and then ends the session: a burst as fast as the link allows,
/// faster than any band, to prove the central loses none. Discovery is the simulated band's; the
/// measurements are the band's sequence, repeated.
final class BurstingHeartRateBand: PeripheralModel {
    private let band: SimulatedPeripheral
    private let seconds: Double
    private var handle: [UInt8]?
    private var deadline: Date?
    private var second = 0
    private var energy = 0

    init(seconds: Int) {
        band = HeartRateBandDemo.band(clock: SimulatedClock(Date().addingTimeInterval(-120)), seconds: 1)
        self.seconds = Double(seconds)
    }

    func answers(to pdu: [UInt8]) -> [[UInt8]] { band.answers(to: pdu) }

    var isStreaming: Bool { band.isStreaming }

    func nextOnItsOwn() -> PeripheralEmission? {
        if handle == nil {
            // The band's own first notification names the measurement's handle.
            guard case .pdu(let first)? = band.nextOnItsOwn(), first.count >= 3 else { return nil }
            handle = Array(first[1...2])
            deadline = Date().addingTimeInterval(seconds)
            return .pdu(first)
        }
        guard let handle, let deadline, Date() < deadline else { return .end }
        second = second % (HeartRateBandDemo.seconds - 1) + 2
        energy = (energy + 1) % 0xFFFF
        return .pdu([ATTOpcode.handleValueNotification.rawValue] + handle + HeartRateBandDemo.measurement(at: second, energy: energy))
    }
}

/// A device whose notifications follow the central's writes in bursts (a Huami band's data
/// packets after its fetch command): the answers to a request go back at once, the
/// notifications and indications after them are paced as the device sends on its own. It stays
/// connected until the central leaves or, with `leavesAfter`, until it has sent the PDU that
/// ends its work (as `StayingPeripheral`, so that the central does not wait out its minute of
/// quiet).
final class PacedPeripheral: PeripheralModel {
    let base: any PeripheralModel
    let leavesAfter: (([UInt8]) -> Bool)?
    private var due: [[UInt8]] = []
    private var done = false

    init(_ base: any PeripheralModel, leavesAfter: (([UInt8]) -> Bool)? = nil) {
        self.base = base
        self.leavesAfter = leavesAfter
    }

    func answers(to pdu: [UInt8]) -> [[UInt8]] {
        var answers: [[UInt8]] = []
        for answer in base.answers(to: pdu) {
            let opcode = answer.first ?? 0
            if opcode == ATTOpcode.handleValueNotification.rawValue || opcode == ATTOpcode.handleValueIndication.rawValue {
                due.append(answer)
            } else {
                answers.append(answer)
            }
        }
        return answers
    }

    var isStreaming: Bool { !due.isEmpty || done }

    func nextOnItsOwn() -> PeripheralEmission? {
        guard !due.isEmpty else { return done ? .end : nil }
        let next = due.removeFirst()
        if leavesAfter?(next) == true { done = true }
        return .pdu(next)
    }

    /// A test for a Huami band's last answer: the second distinct answer to the start of a fetch
    /// that has no data (`10 01 01` with a byte count of 0), the activity's and then the
    /// workouts': the central has everything.
    static func endsHuamiFetches() -> ([UInt8]) -> Bool {
        let seen = EmptyFetchAnswers()
        return { pdu in
            guard pdu.first == ATTOpcode.handleValueNotification.rawValue, pdu.count > 3,
                case .started(count: 0, _)? = try? HuamiFetchAnswer.decode(Array(pdu[3...]))
            else { return false }
            return seen.insert(pdu) >= 2
        }
    }

    /// The distinct empty fetch answers sent (a value may be tested more than once).
    private final class EmptyFetchAnswers {
        private var answers: Set<[UInt8]> = []
        private let lock = NSLock()

        func insert(_ pdu: [UInt8]) -> Int {
            lock.withLock {
                answers.insert(pdu)
                return answers.count
            }
        }
    }
}
