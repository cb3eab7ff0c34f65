import CBluetooth
import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#endif

/// An LE scan on a raw HCI socket through libbluetooth [BlueZ lib/bluetooth/hci.c], as
/// `hcitool lescan` does it: set scan parameters, enable, read LE Meta events through a filter,
/// disable and restore the filter. Controllers that refuse the legacy commands (BT 5 controllers
/// already driven with extended commands answer Command Disallowed) get the LE extended scan
/// commands instead. LE commands on a raw socket need CAP_NET_RAW.
package enum BLEScanner {
    /// Scans for `duration` on `adapter` (`hci0`; the first adapter when nil). Active scanning
    /// asks for scan responses, where many sensors put their name.
    package static func scan(for duration: Duration = .seconds(10), adapter: String? = nil, active: Bool = true) throws(BLEError) -> BLEScanResults {
        // Opening a socket first gives the one-line answer on a machine without Bluetooth.
        _ = Glibc.close(try BluetoothSocket.open(type: Int32(SOCK_RAW.rawValue), protocol: BTPROTO_HCI))
        let id = try BluetoothSocket.adapterID(adapter)
        let dd = hci_open_dev(id)
        guard dd >= 0 else { throw .scanFailed("cannot open adapter hci\(id): \(BluetoothSocket.message(errno))") }
        defer { _ = hci_close_dev(dd) }

        let mode = try start(dd, active: active)
        defer { stop(dd, mode) }

        var saved = hci_filter()
        var savedLength = socklen_t(MemoryLayout<hci_filter>.size)
        _ = getsockopt(dd, SOL_HCI, HCI_FILTER, &saved, &savedLength)
        var filter = hci_filter()
        hci_filter_clear(&filter)
        hci_filter_set_ptype(HCI_EVENT_PKT, &filter)
        hci_filter_set_event(EVT_LE_META_EVENT, &filter)
        guard setsockopt(dd, SOL_HCI, HCI_FILTER, &filter, socklen_t(MemoryLayout<hci_filter>.size)) == 0 else {
            throw .scanFailed("cannot set the HCI event filter: \(BluetoothSocket.message(errno))")
        }
        defer { _ = setsockopt(dd, SOL_HCI, HCI_FILTER, &saved, savedLength) }

        var results = BLEScanResults()
        var buffer = [UInt8](repeating: 0, count: Int(HCI_MAX_EVENT_SIZE) + 1)
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        while clock.now < deadline {
            guard try BluetoothSocket.wait(dd, for: Int16(POLLIN), timeout: deadline - clock.now) != 0 else { break }
            let count = buffer.withUnsafeMutableBytes { read(dd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw .scanFailed("cannot read from the adapter: \(BluetoothSocket.message(errno))")
            }
            for report in reports(in: Array(buffer[0..<count])) { results.add(report, at: Date()) }
        }
        return results
    }

    /// The advertising reports in one packet read from a raw HCI socket (H4 type byte first);
    /// anything else, or a report that does not decode, yields none.
    static func reports(in packet: [UInt8]) -> [AdvertisingReport] {
        guard packet.count >= 3, packet[0] == HCIPacketType.event.rawValue,
            case .event(let code, let parameters)? = try? HCIPacket.decode(type: .event, bytes: Array(packet.dropFirst())),
            case .leAdvertisingReports(let reports)? = try? HCIEvent(code: code, parameters: parameters)
        else { return [] }
        return reports
    }

    enum Mode {
        case legacy
        case extended
    }

    /// OCFs of the LE controller commands used [BlueZ lib/bluetooth/hci.h; monitor/bt.h].
    static let setScanParameters: UInt16 = 0x000B
    static let setScanEnable: UInt16 = 0x000C
    static let setExtendedScanParameters: UInt16 = 0x0041
    static let setExtendedScanEnable: UInt16 = 0x0042
    static let commandDisallowed: UInt8 = 0x0C

    /// Interval and window 0x0010 × 0.625 ms = 10 ms, as hcitool uses.
    static func legacyParameters(active: Bool) -> [UInt8] { [active ? 1 : 0, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00] }
    /// Own address public, accept all, 1M PHY only, then type/interval/window for that PHY.
    static func extendedParameters(active: Bool) -> [UInt8] { [0x00, 0x00, 0x01, active ? 1 : 0, 0x10, 0x00, 0x10, 0x00] }

    private static func start(_ dd: Int32, active: Bool) throws(BLEError) -> Mode {
        let status = try command(dd, setScanParameters, legacyParameters(active: active), name: "LE Set Scan Parameters")
        if status == 0 {
            try expectSuccess(try command(dd, setScanEnable, [0x01, 0x00], name: "LE Set Scan Enable"), "LE Set Scan Enable")
            return .legacy
        }
        guard status == commandDisallowed else { throw refused("LE Set Scan Parameters", status) }
        let extended = try command(dd, setExtendedScanParameters, extendedParameters(active: active), name: "LE Set Extended Scan Parameters")
        guard extended == 0 else { throw refused("LE Set Extended Scan Parameters", extended) }
        try expectSuccess(
            try command(dd, setExtendedScanEnable, [0x01, 0x00, 0x00, 0x00, 0x00, 0x00], name: "LE Set Extended Scan Enable"),
            "LE Set Extended Scan Enable")
        return .extended
    }

    private static func stop(_ dd: Int32, _ mode: Mode) {
        switch mode {
        case .legacy: _ = try? command(dd, setScanEnable, [0x00, 0x00], name: "LE Set Scan Enable")
        case .extended: _ = try? command(dd, setExtendedScanEnable, [0x00, 0x00, 0x00, 0x00, 0x00, 0x00], name: "LE Set Extended Scan Enable")
        }
    }

    /// Sends an LE controller command and returns the status byte of its Command Complete.
    private static func command(_ dd: Int32, _ ocf: UInt16, _ parameters: [UInt8], name: String) throws(BLEError) -> UInt8 {
        var parameters = parameters
        var status: UInt8 = 0xFF
        let result = parameters.withUnsafeMutableBytes { cparam in
            withUnsafeMutableBytes(of: &status) { rparam in
                var request = hci_request(
                    ogf: UInt16(OGF_LE_CTL), ocf: ocf, event: Int32(EVT_CMD_COMPLETE), cparam: cparam.baseAddress,
                    clen: Int32(cparam.count), rparam: rparam.baseAddress, rlen: 1)
                return hci_send_req(dd, &request, 1000)
            }
        }
        guard result >= 0 else {
            let code = errno
            if code == EPERM || code == EACCES {
                throw .bluetoothUnavailable(
                    "no permission to scan: LE commands on a raw HCI socket need the CAP_NET_RAW capability "
                        + "(setcap cap_net_raw+ep on the glucobridge binary) or root")
            }
            throw .scanFailed("\(name): \(BluetoothSocket.message(code))")
        }
        return status
    }

    private static func expectSuccess(_ status: UInt8, _ name: String) throws(BLEError) {
        guard status == 0 else { throw refused(name, status) }
    }

    private static func refused(_ name: String, _ status: UInt8) -> BLEError {
        let hint = status == commandDisallowed ? " (Command Disallowed: another program may be scanning — bluetoothctl scan off)" : ""
        return .scanFailed("the adapter refused \(name) with HCI status \(Hex.literal(status, digits: 2))\(hint)")
    }
}
