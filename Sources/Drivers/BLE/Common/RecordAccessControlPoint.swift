/// Record Access Control Point 0x2A52, shared by the Glucose (0x1808) and CGM (0x181F) services:
/// requests written to it, and the indications that answer them.
///
/// Sources: Bluetooth SIG GATT XML record_access_control_point (oesmith/gatt-xml);
/// NordicSemiconductor Android-BLE-Common-Library RecordAccessControlPointData
/// (https://github.com/NordicSemiconductor/Android-BLE-Common-Library).
///
/// Request: opcode u8, operator u8, operand. Opcodes 1 report stored records, 2 delete stored
/// records, 3 abort, 4 report number of stored records; operators 0 null, 1 all, 2 ≤, 3 ≥, 4 within
/// range, 5 first, 6 last. Operators 2–4 take a filter type (0x01 = sequence number for Glucose,
/// time offset for CGMS) and one or two u16 values. Only read requests (and abort) can be built
/// here: deleting records on the user's device is not something glucobridge does.
///
/// Response (indication): `05 00 count-u16` (number of stored records) or `06 00 request-opcode
/// code` with codes 1 success, 2 opcode not supported, 3 invalid operator, 4 operator not
/// supported, 5 invalid operand, 6 no records found, 7 abort unsuccessful, 8 procedure not
/// completed, 9 operand not supported. Stored records arrive as ordinary measurement
/// notifications before the final response code.

/// Which stored records a request covers.
public enum RACPFilter: Sendable, Equatable {
    case all
    case first
    case last
    /// Glucose service: records with a sequence number ≥ the value.
    case sequenceNumberAtLeast(UInt16)
    /// CGM service: records with a time offset (minutes) ≥ the value.
    case timeOffsetAtLeast(UInt16)
    /// Glucose: sequence numbers ≤ the value.
    case sequenceNumberAtMost(UInt16)
    /// CGM: time offsets ≤ the value.
    case timeOffsetAtMost(UInt16)
    /// Glucose: sequence numbers within the inclusive range.
    case sequenceNumbers(ClosedRange<UInt16>)
    /// CGM: time offsets within the inclusive range.
    case timeOffsets(ClosedRange<UInt16>)

    /// Filter type 0x01 names the sequence number (Glucose) or time offset (CGMS).
    static let filterType: UInt8 = 0x01

    /// Operator and operand bytes.
    var bytes: [UInt8] {
        func le(_ value: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
        switch self {
        case .all: return [RACPOperator.allRecords.rawValue]
        case .first: return [RACPOperator.firstRecord.rawValue]
        case .last: return [RACPOperator.lastRecord.rawValue]
        case .sequenceNumberAtLeast(let value), .timeOffsetAtLeast(let value):
            return [RACPOperator.greaterThanOrEqualTo.rawValue, Self.filterType] + le(value)
        case .sequenceNumberAtMost(let value), .timeOffsetAtMost(let value):
            return [RACPOperator.lessThanOrEqualTo.rawValue, Self.filterType] + le(value)
        case .sequenceNumbers(let range), .timeOffsets(let range):
            return [RACPOperator.withinRange.rawValue, Self.filterType] + le(range.lowerBound) + le(range.upperBound)
        }
    }
}

/// RACP opcodes.
package enum RACPOpCode: UInt8, Sendable, Equatable, CaseIterable {
    case reportStoredRecords = 1
    case deleteStoredRecords = 2
    case abortOperation = 3
    case reportNumberOfStoredRecords = 4
    case numberOfStoredRecordsResponse = 5
    case responseCode = 6
}

/// RACP operators.
package enum RACPOperator: UInt8, Sendable, Equatable, CaseIterable {
    case null = 0
    case allRecords = 1
    case lessThanOrEqualTo = 2
    case greaterThanOrEqualTo = 3
    case withinRange = 4
    case firstRecord = 5
    case lastRecord = 6
}

/// A request written to the RACP.
public enum RACPRequest: Sendable, Equatable {
    /// Send the matching records as measurement notifications, then a response code.
    case reportStoredRecords(RACPFilter)
    /// Answer with the number of matching records.
    case reportNumberOfStoredRecords(RACPFilter)
    /// Stop the procedure in progress.
    case abort

    /// The bytes to write (e.g. report all = `01 01`; CGMS offsets ≥ 600 = `01 03 01 58 02`).
    package var bytes: [UInt8] {
        switch self {
        case .reportStoredRecords(let filter): [RACPOpCode.reportStoredRecords.rawValue] + filter.bytes
        case .reportNumberOfStoredRecords(let filter): [RACPOpCode.reportNumberOfStoredRecords.rawValue] + filter.bytes
        case .abort: [RACPOpCode.abortOperation.rawValue, RACPOperator.null.rawValue]
        }
    }

    /// The opcode a response code answers for this request.
    package var opCode: RACPOpCode {
        switch self {
        case .reportStoredRecords: .reportStoredRecords
        case .reportNumberOfStoredRecords: .reportNumberOfStoredRecords
        case .abort: .abortOperation
        }
    }
}

/// The result a device reports for a RACP request.
public enum RACPResponseCode: Sendable, Equatable, CustomStringConvertible {
    case success
    case opCodeNotSupported
    case invalidOperator
    case operatorNotSupported
    case invalidOperand
    case noRecordsFound
    case abortUnsuccessful
    case procedureNotCompleted
    case operandNotSupported
    /// A code this specification version does not define.
    case reserved(UInt8)

    package init(rawValue: UInt8) {
        switch rawValue {
        case 1: self = .success
        case 2: self = .opCodeNotSupported
        case 3: self = .invalidOperator
        case 4: self = .operatorNotSupported
        case 5: self = .invalidOperand
        case 6: self = .noRecordsFound
        case 7: self = .abortUnsuccessful
        case 8: self = .procedureNotCompleted
        case 9: self = .operandNotSupported
        default: self = .reserved(rawValue)
        }
    }

    package var rawValue: UInt8 {
        switch self {
        case .success: 1
        case .opCodeNotSupported: 2
        case .invalidOperator: 3
        case .operatorNotSupported: 4
        case .invalidOperand: 5
        case .noRecordsFound: 6
        case .abortUnsuccessful: 7
        case .procedureNotCompleted: 8
        case .operandNotSupported: 9
        case .reserved(let raw): raw
        }
    }

    public var description: String {
        switch self {
        case .success: "success"
        case .opCodeNotSupported: "op code not supported"
        case .invalidOperator: "invalid operator"
        case .operatorNotSupported: "operator not supported"
        case .invalidOperand: "invalid operand"
        case .noRecordsFound: "no records found"
        case .abortUnsuccessful: "abort unsuccessful"
        case .procedureNotCompleted: "procedure not completed"
        case .operandNotSupported: "operand not supported"
        case .reserved(let raw): "reserved response code \(raw)"
        }
    }
}

/// An indication received on the RACP.
public enum RACPResponse: Sendable, Equatable {
    /// Opcode 5: how many records match the request.
    case numberOfStoredRecords(UInt16)
    /// Opcode 6: the outcome of the request with `requestOpCode`.
    case responseCode(requestOpCode: UInt8, code: RACPResponseCode)

    public static func decode(_ value: [UInt8]) throws(BLEValueError) -> RACPResponse {
        var reader = GATTValueReader(value, .recordAccessControlPoint)
        let opCode = try reader.u8("op code")
        let kind = RACPOpCode(rawValue: opCode)
        guard kind == .numberOfStoredRecordsResponse || kind == .responseCode else {
            throw .invalidField(
                characteristic: .recordAccessControlPoint, field: "op code", offset: 0,
                reason: "is \(opCode) (a device answers with 5, number of records, or 6, response code)")
        }
        let operatorAt = reader.offset
        let op = try reader.u8("operator")
        guard op == RACPOperator.null.rawValue else {
            throw .invalidField(
                characteristic: .recordAccessControlPoint, field: "operator", offset: operatorAt,
                reason: "is \(op) (a response carries the null operator 0)")
        }
        if kind == .numberOfStoredRecordsResponse {
            let count = try reader.u16("number of records")
            try reader.expectEnd(allowed: [4])
            return .numberOfStoredRecords(count)
        }
        let request = try reader.u8("request op code")
        let code = try reader.u8("response code value")
        try reader.expectEnd(allowed: [4])
        return .responseCode(requestOpCode: request, code: RACPResponseCode(rawValue: code))
    }
}
