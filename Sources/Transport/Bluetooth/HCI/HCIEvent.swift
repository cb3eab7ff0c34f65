/// The role of the local controller on an LE connection.
package enum LERole: UInt8, Sendable, Equatable {
    case central = 0
    case peripheral = 1
}

/// An LE Connection Complete (subevent 0x01) or LE Enhanced Connection Complete (0x0A) event
/// [BlueZ lib/bluetooth/hci.h `evt_le_connection_complete`; monitor/bt.h].
public struct LEConnectionComplete: Sendable, Equatable {
    /// 0 when the connection was made; otherwise the HCI error code and no connection exists.
    package var status: UInt8
    package var handle: UInt16
    package var role: LERole
    package var peerAddressType: LEAddressType
    package var peerAddress: BluetoothAddress
    /// Connection interval in 1.25 ms units.
    package var interval: UInt16
    package var latency: UInt16
    /// Supervision timeout in 10 ms units.
    package var supervisionTimeout: UInt16
    /// Whether the event was the enhanced form (0x0A).
    package var isEnhanced: Bool

    package init(
        status: UInt8, handle: UInt16, role: LERole, peerAddressType: LEAddressType, peerAddress: BluetoothAddress,
        interval: UInt16, latency: UInt16, supervisionTimeout: UInt16, isEnhanced: Bool
    ) {
        self.status = status
        self.handle = handle
        self.role = role
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
        self.isEnhanced = isEnhanced
    }

    /// The 18 parameter bytes of the legacy subevent 0x01, subevent code included; clock accuracy 0.
    package var legacyEventParameters: [UInt8] {
        var out: [UInt8] = [HCIEvent.leConnectionCompleteSubevent, status]
        out.appendLE(handle)
        out.append(role.rawValue)
        out.append(peerAddressType.rawValue)
        out.append(contentsOf: peerAddress.littleEndianBytes)
        out.appendLE(interval)
        out.appendLE(latency)
        out.appendLE(supervisionTimeout)
        out.append(0)
        return out
    }
}

/// The HCI events a replay and a scanner need, decoded; every other event is kept raw.
public enum HCIEvent: Sendable, Equatable {
    /// Disconnection Complete (0x05).
    case disconnectionComplete(status: UInt8, handle: UInt16, reason: UInt8)
    /// Command Complete (0x0E): the opcode and its return parameters (status first).
    case commandComplete(opcode: UInt16, returnParameters: [UInt8])
    /// Command Status (0x0F).
    case commandStatus(status: UInt8, opcode: UInt16)
    /// LE Connection Complete or LE Enhanced Connection Complete.
    case leConnectionComplete(LEConnectionComplete)
    /// LE Advertising Report (0x02) or LE Extended Advertising Report (0x0D).
    case leAdvertisingReports([AdvertisingReport])
    /// Any other LE Meta subevent.
    case leMeta(subevent: UInt8, parameters: [UInt8])
    /// Any other event.
    case other(code: UInt8, parameters: [UInt8])

    package static let disconnectionCompleteCode: UInt8 = 0x05
    package static let commandCompleteCode: UInt8 = 0x0E
    package static let commandStatusCode: UInt8 = 0x0F
    package static let leMetaCode: UInt8 = 0x3E
    package static let leConnectionCompleteSubevent: UInt8 = 0x01
    package static let leAdvertisingReportSubevent: UInt8 = 0x02
    package static let leEnhancedConnectionCompleteSubevent: UInt8 = 0x0A
    package static let leExtendedAdvertisingReportSubevent: UInt8 = 0x0D

    /// Decodes an event's parameters; the events listed above must have their full layout
    /// [BlueZ lib/bluetooth/hci.h].
    public init(code: UInt8, parameters p: [UInt8]) throws(HCIDecodeError) {
        switch code {
        case Self.disconnectionCompleteCode:
            try Self.need(4, p, "Disconnection Complete")
            self = .disconnectionComplete(status: p[0], handle: p.u16(at: 1) & 0x0FFF, reason: p[3])
        case Self.commandCompleteCode:
            try Self.need(3, p, "Command Complete")
            self = .commandComplete(opcode: p.u16(at: 1), returnParameters: Array(p[3...]))
        case Self.commandStatusCode:
            try Self.need(4, p, "Command Status")
            self = .commandStatus(status: p[0], opcode: p.u16(at: 2))
        case Self.leMetaCode:
            try Self.need(1, p, "LE Meta")
            self = try Self.leMeta(subevent: p[0], Array(p[1...]))
        default:
            self = .other(code: code, parameters: p)
        }
    }

    private static func leMeta(subevent: UInt8, _ p: [UInt8]) throws(HCIDecodeError) -> HCIEvent {
        switch subevent {
        case leConnectionCompleteSubevent, leEnhancedConnectionCompleteSubevent:
            let enhanced = subevent == leEnhancedConnectionCompleteSubevent
            let name = enhanced ? "LE Enhanced Connection Complete" : "LE Connection Complete"
            // Enhanced adds the local and peer resolvable private addresses before the interval.
            let timing = enhanced ? 23 : 11
            try need(timing + 7, p, name)
            guard let role = LERole(rawValue: p[3]) else { throw HCIDecodeError("\(name): unknown role \(p[3])") }
            guard let type = LEAddressType(rawValue: p[4]) else {
                throw HCIDecodeError("\(name): unknown peer address type \(p[4])")
            }
            return .leConnectionComplete(
                LEConnectionComplete(
                    status: p[0], handle: p.u16(at: 1) & 0x0FFF, role: role, peerAddressType: type,
                    peerAddress: BluetoothAddress(littleEndian: p[5..<11])!, interval: p.u16(at: timing),
                    latency: p.u16(at: timing + 2), supervisionTimeout: p.u16(at: timing + 4), isEnhanced: enhanced))
        case leAdvertisingReportSubevent:
            return .leAdvertisingReports(try legacyReports(p))
        case leExtendedAdvertisingReportSubevent:
            return .leAdvertisingReports(try extendedReports(p))
        default:
            return .leMeta(subevent: subevent, parameters: p)
        }
    }

    /// Per report: event type 1, address type 1, address 6, data length 1, data, RSSI i8 after
    /// the data [BlueZ monitor/packet.c `le_adv_report_evt`].
    private static func legacyReports(_ p: [UInt8]) throws(HCIDecodeError) -> [AdvertisingReport] {
        try need(1, p, "LE Advertising Report")
        var reports: [AdvertisingReport] = []
        var at = 1
        for index in 0..<Int(p[0]) {
            guard p.count - at >= 9 else { throw HCIDecodeError("LE Advertising Report \(index + 1) is cut short") }
            let length = Int(p[at + 8])
            guard p.count - at >= 10 + length else {
                throw HCIDecodeError("LE Advertising Report \(index + 1) claims \(length) data bytes that are missing")
            }
            reports.append(
                AdvertisingReport(
                    eventType: UInt16(p[at]), isExtended: false, addressType: p[at + 1],
                    address: BluetoothAddress(littleEndian: p[(at + 2)..<(at + 8)])!,
                    rssi: Int8(bitPattern: p[at + 9 + length]), data: Array(p[(at + 9)..<(at + 9 + length)])))
            at += 10 + length
        }
        return reports
    }

    /// Per report: event type 2, address type 1, address 6, primary PHY, secondary PHY, SID,
    /// TX power, RSSI i8, periodic interval 2, direct address type 1, direct address 6, data
    /// length 1, data [BlueZ monitor/bt.h `bt_hci_le_ext_adv_report`].
    private static func extendedReports(_ p: [UInt8]) throws(HCIDecodeError) -> [AdvertisingReport] {
        try need(1, p, "LE Extended Advertising Report")
        var reports: [AdvertisingReport] = []
        var at = 1
        for index in 0..<Int(p[0]) {
            guard p.count - at >= 24 else { throw HCIDecodeError("LE Extended Advertising Report \(index + 1) is cut short") }
            let length = Int(p[at + 23])
            guard p.count - at >= 24 + length else {
                throw HCIDecodeError("LE Extended Advertising Report \(index + 1) claims \(length) data bytes that are missing")
            }
            reports.append(
                AdvertisingReport(
                    eventType: p.u16(at: at), isExtended: true, addressType: p[at + 2],
                    address: BluetoothAddress(littleEndian: p[(at + 3)..<(at + 9)])!,
                    rssi: Int8(bitPattern: p[at + 13]), data: Array(p[(at + 24)..<(at + 24 + length)])))
            at += 24 + length
        }
        return reports
    }

    private static func need(_ count: Int, _ p: [UInt8], _ name: String) throws(HCIDecodeError) {
        guard p.count >= count else { throw HCIDecodeError("\(name) needs \(count) parameter bytes, found \(p.count)") }
    }

    /// A plain name for an HCI disconnection reason (Core spec error codes as BlueZ names them).
    package static func reasonName(_ code: UInt8) -> String {
        switch code {
        case 0x05: "authentication failure"
        case 0x08: "connection timeout"
        case 0x13: "remote user terminated connection"
        case 0x14: "remote device terminated connection due to low resources"
        case 0x15: "remote device terminated connection due to power off"
        case 0x16: "connection terminated by local host"
        case 0x22, 0x28: "LL response timeout"
        case 0x3B: "unacceptable connection parameters"
        case 0x3D: "connection terminated due to MIC failure"
        case 0x3E: "connection failed to be established"
        default: "reason 0x" + Hex.encode([code])
        }
    }
}
