/// ATT PDU opcodes [BlueZ src/shared/att-types.h].
package enum ATTOpcode: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case errorResponse = 0x01
    case exchangeMTURequest = 0x02
    case exchangeMTUResponse = 0x03
    case findInformationRequest = 0x04
    case findInformationResponse = 0x05
    case findByTypeValueRequest = 0x06
    case findByTypeValueResponse = 0x07
    case readByTypeRequest = 0x08
    case readByTypeResponse = 0x09
    case readRequest = 0x0A
    case readResponse = 0x0B
    case readBlobRequest = 0x0C
    case readBlobResponse = 0x0D
    case readMultipleRequest = 0x0E
    case readMultipleResponse = 0x0F
    case readByGroupTypeRequest = 0x10
    case readByGroupTypeResponse = 0x11
    case writeRequest = 0x12
    case writeResponse = 0x13
    case prepareWriteRequest = 0x16
    case prepareWriteResponse = 0x17
    case executeWriteRequest = 0x18
    case executeWriteResponse = 0x19
    case handleValueNotification = 0x1B
    case handleValueIndication = 0x1D
    case handleValueConfirmation = 0x1E
    case readMultipleVariableRequest = 0x20
    case readMultipleVariableResponse = 0x21
    case multipleHandleValueNotification = 0x23
    case writeCommand = 0x52
    case signedWriteCommand = 0xD2

    /// What role a PDU plays in the protocol.
    package enum Kind: Sendable, Equatable {
        /// Expects exactly one response (or an Error Response).
        case request
        case response
        /// Client to server, no response.
        case command
        /// Server to client, no confirmation.
        case notification
        /// Server to client, to be confirmed.
        case indication
        case confirmation
    }

    package var kind: Kind {
        switch self {
        case .exchangeMTURequest, .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest, .readRequest,
            .readBlobRequest, .readMultipleRequest, .readByGroupTypeRequest, .writeRequest, .prepareWriteRequest,
            .executeWriteRequest, .readMultipleVariableRequest:
            .request
        case .errorResponse, .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse, .readByTypeResponse,
            .readResponse, .readBlobResponse, .readMultipleResponse, .readByGroupTypeResponse, .writeResponse,
            .prepareWriteResponse, .executeWriteResponse, .readMultipleVariableResponse:
            .response
        case .writeCommand, .signedWriteCommand: .command
        case .handleValueNotification, .multipleHandleValueNotification: .notification
        case .handleValueIndication: .indication
        case .handleValueConfirmation: .confirmation
        }
    }

    /// The response that answers this request (every request opcode is even; its response is the next).
    package var response: ATTOpcode? {
        kind == .request ? ATTOpcode(rawValue: rawValue + 1) : nil
    }

    /// Whether `bytes` (a whole PDU) answers a request with opcode `request`: its response opcode
    /// or an Error Response naming it.
    package static func isAnswer(_ bytes: [UInt8], to request: UInt8) -> Bool {
        guard let first = bytes.first else { return false }
        if first == ATTOpcode.errorResponse.rawValue { return bytes.count >= 2 && bytes[1] == request }
        return first == request &+ 1 && ATTOpcode(rawValue: request)?.kind == .request
    }

    /// The name the Core specification gives the PDU.
    package var description: String {
        switch self {
        case .errorResponse: "Error Response"
        case .exchangeMTURequest: "Exchange MTU Request"
        case .exchangeMTUResponse: "Exchange MTU Response"
        case .findInformationRequest: "Find Information Request"
        case .findInformationResponse: "Find Information Response"
        case .findByTypeValueRequest: "Find By Type Value Request"
        case .findByTypeValueResponse: "Find By Type Value Response"
        case .readByTypeRequest: "Read By Type Request"
        case .readByTypeResponse: "Read By Type Response"
        case .readRequest: "Read Request"
        case .readResponse: "Read Response"
        case .readBlobRequest: "Read Blob Request"
        case .readBlobResponse: "Read Blob Response"
        case .readMultipleRequest: "Read Multiple Request"
        case .readMultipleResponse: "Read Multiple Response"
        case .readByGroupTypeRequest: "Read By Group Type Request"
        case .readByGroupTypeResponse: "Read By Group Type Response"
        case .writeRequest: "Write Request"
        case .writeResponse: "Write Response"
        case .prepareWriteRequest: "Prepare Write Request"
        case .prepareWriteResponse: "Prepare Write Response"
        case .executeWriteRequest: "Execute Write Request"
        case .executeWriteResponse: "Execute Write Response"
        case .handleValueNotification: "Handle Value Notification"
        case .handleValueIndication: "Handle Value Indication"
        case .handleValueConfirmation: "Handle Value Confirmation"
        case .readMultipleVariableRequest: "Read Multiple Variable Request"
        case .readMultipleVariableResponse: "Read Multiple Variable Response"
        case .multipleHandleValueNotification: "Multiple Handle Value Notification"
        case .writeCommand: "Write Command"
        case .signedWriteCommand: "Signed Write Command"
        }
    }

    /// `Read Request` for a known opcode, `opcode 0x42` otherwise.
    package static func name(_ raw: UInt8) -> String {
        ATTOpcode(rawValue: raw)?.description ?? "opcode " + Hex.literal(raw, digits: 2)
    }
}

/// An ATT error code from an Error Response [BlueZ src/shared/att-types.h].
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    package static let invalidHandle = ATTErrorCode(rawValue: 0x01)
    package static let readNotPermitted = ATTErrorCode(rawValue: 0x02)
    package static let writeNotPermitted = ATTErrorCode(rawValue: 0x03)
    package static let invalidPDU = ATTErrorCode(rawValue: 0x04)
    package static let insufficientAuthentication = ATTErrorCode(rawValue: 0x05)
    package static let requestNotSupported = ATTErrorCode(rawValue: 0x06)
    package static let invalidOffset = ATTErrorCode(rawValue: 0x07)
    package static let insufficientAuthorization = ATTErrorCode(rawValue: 0x08)
    package static let prepareQueueFull = ATTErrorCode(rawValue: 0x09)
    package static let attributeNotFound = ATTErrorCode(rawValue: 0x0A)
    package static let attributeNotLong = ATTErrorCode(rawValue: 0x0B)
    package static let insufficientKeySize = ATTErrorCode(rawValue: 0x0C)
    package static let invalidAttributeValueLength = ATTErrorCode(rawValue: 0x0D)
    package static let unlikelyError = ATTErrorCode(rawValue: 0x0E)
    package static let insufficientEncryption = ATTErrorCode(rawValue: 0x0F)
    package static let unsupportedGroupType = ATTErrorCode(rawValue: 0x10)
    package static let insufficientResources = ATTErrorCode(rawValue: 0x11)
    package static let databaseOutOfSync = ATTErrorCode(rawValue: 0x12)
    package static let valueNotAllowed = ATTErrorCode(rawValue: 0x13)
    package static let writeRequestRejected = ATTErrorCode(rawValue: 0xFC)
    package static let cccdImproperlyConfigured = ATTErrorCode(rawValue: 0xFD)
    package static let procedureAlreadyInProgress = ATTErrorCode(rawValue: 0xFE)
    package static let outOfRange = ATTErrorCode(rawValue: 0xFF)

    /// The specification's name, or the range a code falls in.
    package var name: String {
        switch rawValue {
        case 0x01: "Invalid Handle"
        case 0x02: "Read Not Permitted"
        case 0x03: "Write Not Permitted"
        case 0x04: "Invalid PDU"
        case 0x05: "Insufficient Authentication"
        case 0x06: "Request Not Supported"
        case 0x07: "Invalid Offset"
        case 0x08: "Insufficient Authorization"
        case 0x09: "Prepare Queue Full"
        case 0x0A: "Attribute Not Found"
        case 0x0B: "Attribute Not Long"
        case 0x0C: "Insufficient Encryption Key Size"
        case 0x0D: "Invalid Attribute Value Length"
        case 0x0E: "Unlikely Error"
        case 0x0F: "Insufficient Encryption"
        case 0x10: "Unsupported Group Type"
        case 0x11: "Insufficient Resources"
        case 0x12: "Database Out Of Sync"
        case 0x13: "Value Not Allowed"
        case 0x80...0x9F: "Application Error (defined by the service)"
        case 0xFC: "Write Request Rejected"
        case 0xFD: "Client Characteristic Configuration Descriptor Improperly Configured"
        case 0xFE: "Procedure Already In Progress"
        case 0xFF: "Out Of Range"
        default: "Reserved"
        }
    }

    /// Whether the device wants a more secure link (pairing / encryption) before it answers.
    package var needsSecurity: Bool {
        self == .insufficientAuthentication || self == .insufficientEncryption || self == .insufficientKeySize
    }

    /// `Read Not Permitted (0x02)`.
    public var description: String { "\(name) (\(Hex.literal(rawValue, digits: 2)))" }
}

/// `0x0015`.
package func handleText(_ handle: UInt16) -> String {
    Hex.literal(handle)
}
