import Foundation
import Transport

/// A record store behind a simulated Record Access Control Point (Bluetooth SIG, Record Access
/// Control Point 0x2A52, as the Glucose Service 1.0 and the CGM Service 1.0.1 use it): counts and
/// reports the records whose index (a CGM's time offset, a meter's sequence number) the request's
/// filter selects — all (operator 0x01), or at least an index (operator 0x03, filter type 0x01) —
/// then answers with a response code. Each record is the values the device notifies for it (a
/// meter's measurement and its context).
package final class RACPServer {
    package typealias Record = (index: UInt16, values: [SimulatedPeripheral.Emission])

    package var records: [Record]
    /// The code answering "report stored records" when records match (1 = success); nil: the
    /// records are sent without a response code (the device then leaves).
    package var reportCode: UInt8? = 1
    /// When set, requests with the ≥ operator are refused with this code.
    package var refuseAtLeast: UInt8?
    /// When set, a report sends only this many record values and neither the rest nor a response
    /// code: the link is lost in the middle of the transfer (the simulated device then leaves).
    package var cutAfterValues: Int?
    /// Every request written to the control point, in order.
    package private(set) var requests: [[UInt8]] = []

    package init(_ records: [Record]) {
        self.records = records
    }

    /// Answers the control point's writes on `peripheral`.
    package func serve(on peripheral: SimulatedPeripheral) {
        peripheral.controlPoints[Self.controlPoint] = { [self] request in answer(request) }
    }

    static let controlPoint = BluetoothUUID(0x2A52)

    /// The indications and notifications that follow the write of `request`. Op codes: 0x01 report
    /// stored records, 0x04 report the number of stored records; answers: 0x05 number of stored
    /// records (u16), 0x06 response code (request op code, code: 1 success, 2 op code not
    /// supported, 4 operator not supported, 5 operand not supported, 6 no records found).
    package func answer(_ request: [UInt8]) -> [SimulatedPeripheral.Emission] {
        requests.append(request)
        func respond(_ bytes: [UInt8]) -> [SimulatedPeripheral.Emission] { [.init(0x2A52, bytes, indication: true)] }
        guard request.count >= 2 else { return respond([0x06, 0x00, request.first ?? 0, 0x05]) }
        let selected: [Record]
        switch request[1] {
        case 0x01:
            selected = records
        case 0x03 where request.count == 5 && request[2] == 0x01:
            if let refuseAtLeast { return respond([0x06, 0x00, request[0], refuseAtLeast]) }
            let from = UInt16(request[3]) | UInt16(request[4]) << 8
            selected = records.filter { $0.index >= from }
        default:
            return respond([0x06, 0x00, request[0], 0x04])
        }
        switch request[0] {
        case 0x04: return respond([0x05, 0x00, UInt8(selected.count & 0xFF), UInt8(selected.count >> 8)])
        case 0x01:
            guard !selected.isEmpty else { return respond([0x06, 0x00, 0x01, 0x06]) }
            let values = selected.flatMap(\.values)
            if let cutAfterValues { return Array(values.prefix(cutAfterValues)) }
            return values + (reportCode.map { respond([0x06, 0x00, 0x01, $0]) } ?? [])
        default: return respond([0x06, 0x00, request[0], 0x02])
        }
    }
}
