import CBluetooth
import CaptureBluetooth
import Foundation
import Simulators
import Transport

#if canImport(Glibc)
    import Glibc
#endif

/// Faults a lab peripheral makes once: the link dropped after a number of PDUs it sent (in the
/// middle of a Record Access Control Point transfer, or before the client's discovery ends).
struct BLEFault {
    var afterPDUs: Int
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
    let model: SimulatedPeripheral
    var fault: BLEFault?
    private let log: (String) -> Void

    init(index: Int32, model: SimulatedPeripheral, fault: BLEFault?, log: @escaping (String) -> Void) {
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

    private func serve(_ link: Int32) throws {
        var sent = 0
        var subscribed = false
        var buffer = [UInt8](repeating: 0, count: 1024)
        func send(_ pdu: [UInt8]) -> Bool {
            if let fault, sent >= fault.afterPDUs {
                log("fault: dropping the link after \(sent) PDUs")
                return false
            }
            let written = pdu.withUnsafeBytes { Glibc.send(link, $0.baseAddress, $0.count, 0) }
            sent += 1
            return written == pdu.count
        }
        while true {
            var entry = pollfd(fd: link, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, subscribed ? 30 : 2000)
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
                try? model.send(Array(buffer[0..<count]))
                subscribed = model.hasSubscriptions
                while let answer = model.takeAnswer() {
                    guard send(answer) else { return }
                }
                continue
            }
            guard subscribed else { continue }
            // The central is idle: the next scheduled emission, or the end of the session.
            do {
                guard let next = try model.receive(timeout: .zero) else { continue }
                guard send(next.bytes) else { return }
            } catch {
                log("the schedule is done: disconnecting")
                return
            }
        }
    }
}
