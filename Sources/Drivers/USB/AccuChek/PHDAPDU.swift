/// The IEEE 11073-20601 APDUs of a personal health device exchange, in MDER (Medical Device
/// Encoding Rules: every integer big-endian, every variable part preceded by its 16-bit length).
///
/// Choices and layouts as the public implementations send and read them: Tidepool uploader
/// `lib/drivers/roche/accuChekUSB.js` and `utils.js` (APDU and data-APDU choices, AARE, event
/// report responses, GET, ACTION), Signove Antidote (`src/asn1/phd_types.h`) for the structure
/// names. An APDU is `choice (2) length (2) body`.
public enum PHDAPDU: Sendable, Equatable {
    case associationRequest(AssociationRequest)
    case associationResponse(AssociationResponse)
    case releaseRequest(reason: UInt16)
    case releaseResponse(reason: UInt16)
    case abort(reason: UInt16)
    case presentation(DataAPDU)

    package static let aarq: UInt16 = 0xE200
    package static let aare: UInt16 = 0xE300
    package static let rlrq: UInt16 = 0xE400
    package static let rlre: UInt16 = 0xE500
    package static let abrt: UInt16 = 0xE600
    package static let prst: UInt16 = 0xE700

    /// The largest APDU accepted: the 16-bit length allows 65,535 body bytes.
    package static let maximumLength = 4 + 0xFFFF

    /// The APDU's name for messages.
    package var name: String {
        switch self {
        case .associationRequest: "association request (0xE200)"
        case .associationResponse: "association response (0xE300)"
        case .releaseRequest: "release request (0xE400)"
        case .releaseResponse: "release response (0xE500)"
        case .abort: "abort (0xE600)"
        case .presentation(let data): data.message.name + " (invoke-id \(data.invokeID))"
        }
    }

    static func name(ofChoice choice: UInt16) -> String {
        switch choice {
        case aarq: "association request (0xE200)"
        case aare: "association response (0xE300)"
        case rlrq: "release request (0xE400)"
        case rlre: "release response (0xE500)"
        case abrt: "abort (0xE600)"
        case prst: "presentation APDU (0xE700)"
        default: "APDU 0x" + phdHex16(choice)
        }
    }

    /// Decodes one whole APDU: `bytes` must be exactly its 4-byte header and the length it gives.
    public static func decode(_ bytes: [UInt8]) throws(AccuChekError) -> PHDAPDU {
        var header = MDERReader(bytes, apdu: "APDU")
        let choice = try header.u16("APDU choice")
        let length = try header.u16("APDU length")
        let apdu = name(ofChoice: choice)
        guard bytes.count == 4 + Int(length) else {
            throw .malformedAPDU(
                apdu: apdu, offset: 2, reason: "its length field says \(length) body bytes but \(bytes.count - 4) are there")
        }
        var reader = MDERReader(bytes, apdu: apdu, offset: 4)
        let decoded: PHDAPDU
        switch choice {
        case aarq: decoded = .associationRequest(try AssociationRequest(&reader))
        case aare: decoded = .associationResponse(try AssociationResponse(&reader))
        case rlrq: decoded = .releaseRequest(reason: try reader.u16("release reason"))
        case rlre: decoded = .releaseResponse(reason: try reader.u16("release reason"))
        case abrt: decoded = .abort(reason: try reader.u16("abort reason"))
        case prst:
            var octets = try reader.nested("data APDU octet string")
            decoded = .presentation(try DataAPDU(&octets))
        default:
            throw .malformedAPDU(apdu: apdu, offset: 0, reason: "not an IEEE 11073-20601 APDU choice")
        }
        try reader.expectEnd()
        return decoded
    }

    /// The APDU's bytes.
    public func encoded() -> [UInt8] {
        var body = MDERWriter()
        let choice: UInt16
        switch self {
        case .associationRequest(let request):
            choice = Self.aarq
            request.encode(into: &body)
        case .associationResponse(let response):
            choice = Self.aare
            response.encode(into: &body)
        case .releaseRequest(let reason):
            choice = Self.rlrq
            body.u16(reason)
        case .releaseResponse(let reason):
            choice = Self.rlre
            body.u16(reason)
        case .abort(let reason):
            choice = Self.abrt
            body.u16(reason)
        case .presentation(let data):
            choice = Self.prst
            body.lengthPrefixed { data.encode(into: &$0) }
        }
        var apdu = MDERWriter()
        apdu.u16(choice)
        apdu.u16(UInt16(body.bytes.count))
        return apdu.bytes + body.bytes
    }
}

/// The data-proto-id of IEEE 11073-20601.
package let phdDataProtocolID: UInt16 = 20601

/// PhdAssociationInformation: what each side says of itself when associating.
public struct PhdAssociationInformation: Sendable, Equatable {
    package var protocolVersion: UInt32 = 0x8000_0000
    /// 0x8000 MDER.
    package var encodingRules: UInt16 = 0x8000
    package var nomenclatureVersion: UInt32 = 0x8000_0000
    package var functionalUnits: UInt32 = 0
    /// 0x0080_0000 agent, 0x8000_0000 manager.
    package var systemType: UInt32
    /// The EUI-64 system id.
    package var systemID: [UInt8]
    package var deviceConfigurationID: UInt16 = 0
    package var dataRequestModeFlags: UInt16 = 0
    package var dataRequestInitAgentCount: UInt8 = 0
    package var dataRequestInitManagerCount: UInt8 = 0
    package var options: [PHDAttribute] = []

    package static let managerSystemType: UInt32 = 0x8000_0000
    package static let agentSystemType: UInt32 = 0x0080_0000

    package init(systemType: UInt32, systemID: [UInt8]) {
        self.systemType = systemType
        self.systemID = systemID
    }

    init(_ reader: inout MDERReader) throws(AccuChekError) {
        protocolVersion = try reader.u32("protocol version")
        encodingRules = try reader.u16("encoding rules")
        nomenclatureVersion = try reader.u32("nomenclature version")
        functionalUnits = try reader.u32("functional units")
        systemType = try reader.u32("system type")
        systemID = try reader.lengthPrefixed("system id")
        deviceConfigurationID = try reader.u16("dev-config-id")
        dataRequestModeFlags = try reader.u16("data-req-mode-flags")
        dataRequestInitAgentCount = try reader.u8("data-req-init-agent-count")
        dataRequestInitManagerCount = try reader.u8("data-req-init-manager-count")
        options = try PHDAttribute.list(&reader, "option list")
    }

    func encode(into writer: inout MDERWriter) {
        writer.u32(protocolVersion)
        writer.u16(encodingRules)
        writer.u32(nomenclatureVersion)
        writer.u32(functionalUnits)
        writer.u32(systemType)
        writer.lengthPrefixed { $0.append(systemID) }
        writer.u16(deviceConfigurationID)
        writer.u16(dataRequestModeFlags)
        writer.u8(dataRequestInitAgentCount)
        writer.u8(dataRequestInitManagerCount)
        PHDAttribute.encode(options, into: &writer)
    }
}

/// AARQ: the association request an agent (the meter) opens the exchange with.
public struct AssociationRequest: Sendable, Equatable {
    package var associationVersion: UInt32 = 0x8000_0000
    /// The data protocols offered, by id, with their information bytes.
    package var protocols: [(id: UInt16, info: [UInt8])]
    /// The IEEE 11073-20601 offer, decoded.
    package var phd: PhdAssociationInformation?

    package init(phd: PhdAssociationInformation) {
        var writer = MDERWriter()
        phd.encode(into: &writer)
        protocols = [(phdDataProtocolID, writer.bytes)]
        self.phd = phd
    }

    init(_ reader: inout MDERReader) throws(AccuChekError) {
        associationVersion = try reader.u32("assoc-version")
        let count = try reader.u16("data-proto-list count")
        var list = try reader.nested("data-proto-list")
        protocols = []
        for _ in 0..<count {
            let id = try list.u16("data-proto-id")
            let start = list.offset + 2
            let info = try list.lengthPrefixed("data-proto-info")
            protocols.append((id, info))
            if id == phdDataProtocolID, phd == nil {
                var inner = MDERReader(list.bytes, apdu: list.apdu, offset: start, end: start + info.count)
                phd = try PhdAssociationInformation(&inner)
                try inner.expectEnd()
            }
        }
        try list.expectEnd()
    }

    func encode(into writer: inout MDERWriter) {
        writer.u32(associationVersion)
        writer.u16(UInt16(protocols.count))
        writer.lengthPrefixed { list in
            for (id, info) in protocols {
                list.u16(id)
                list.lengthPrefixed { $0.append(info) }
            }
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.associationVersion == rhs.associationVersion && lhs.phd == rhs.phd
            && lhs.protocols.map(\.id) == rhs.protocols.map(\.id) && lhs.protocols.map(\.info) == rhs.protocols.map(\.info)
    }
}

/// AARE: the manager's answer to an association request.
public struct AssociationResponse: Sendable, Equatable {
    /// 0 accepted, 1 rejected-permanent, 2 rejected-transient, 3 accepted-unknown-config, …
    package var result: UInt16
    package var dataProtocolID: UInt16
    package var phd: PhdAssociationInformation

    package static let accepted: UInt16 = 0
    package static let acceptedUnknownConfig: UInt16 = 3

    package init(result: UInt16, dataProtocolID: UInt16 = phdDataProtocolID, phd: PhdAssociationInformation) {
        self.result = result
        self.dataProtocolID = dataProtocolID
        self.phd = phd
    }

    init(_ reader: inout MDERReader) throws(AccuChekError) {
        result = try reader.u16("result")
        dataProtocolID = try reader.u16("data-proto-id")
        var info = try reader.nested("data-proto-info")
        phd = try PhdAssociationInformation(&info)
        try info.expectEnd()
    }

    func encode(into writer: inout MDERWriter) {
        writer.u16(result)
        writer.u16(dataProtocolID)
        writer.lengthPrefixed { phd.encode(into: &$0) }
    }
}

/// One attribute value assertion (AVA-Type): an attribute id and its value's bytes.
public struct PHDAttribute: Sendable, Equatable {
    package var id: UInt16
    package var value: [UInt8]

    package init(id: UInt16, value: [UInt8]) {
        self.id = id
        self.value = value
    }

    /// An AttributeList: count, length, then `id, length, value` for each.
    static func list(_ reader: inout MDERReader, _ field: String) throws(AccuChekError) -> [PHDAttribute] {
        let count = try reader.u16("\(field) count")
        var inner = try reader.nested(field)
        var attributes: [PHDAttribute] = []
        for _ in 0..<count {
            let id = try inner.u16("attribute id")
            attributes.append(PHDAttribute(id: id, value: try inner.lengthPrefixed("attribute 0x\(phdHex16(id)) value")))
        }
        try inner.expectEnd()
        return attributes
    }

    static func encode(_ attributes: [PHDAttribute], into writer: inout MDERWriter) {
        writer.u16(UInt16(attributes.count))
        writer.lengthPrefixed { list in
            for attribute in attributes {
                list.u16(attribute.id)
                list.lengthPrefixed { $0.append(attribute.value) }
            }
        }
    }
}

/// A presentation APDU's content: the invoke-id that pairs a request with its answer, and the
/// message.
public struct DataAPDU: Sendable, Equatable {
    package var invokeID: UInt16
    package var message: DataMessage

    package init(invokeID: UInt16, message: DataMessage) {
        self.invokeID = invokeID
        self.message = message
    }

    init(_ reader: inout MDERReader) throws(AccuChekError) {
        invokeID = try reader.u16("invoke-id")
        let choice = try reader.u16("data-APDU choice")
        var body = try reader.nested("data-APDU message")
        message = try DataMessage(choice: choice, &body)
        try body.expectEnd()
        try reader.expectEnd()
    }

    func encode(into writer: inout MDERWriter) {
        writer.u16(invokeID)
        writer.u16(message.choice)
        writer.lengthPrefixed { message.encode(into: &$0) }
    }
}

/// An event report's fields (EventReportArgumentSimple, and EventReportResultSimple with
/// `time` as the current time and `info` as the reply info).
public struct PHDEvent: Sendable, Equatable {
    package var handle: UInt16
    package var time: UInt32
    package var type: UInt16
    package var info: [UInt8]

    package init(handle: UInt16, time: UInt32, type: UInt16, info: [UInt8]) {
        self.handle = handle
        self.time = time
        self.type = type
        self.info = info
    }

    package static let configuration: UInt16 = 0x0D1C
    package static let segmentData: UInt16 = 0x0D21
}

/// The data-APDU messages (DataApdu.message choices).
public enum DataMessage: Sendable, Equatable {
    /// roiv-cmip-event-report (0x0100) or roiv-cmip-confirmed-event-report (0x0101).
    case eventReport(PHDEvent, confirmed: Bool)
    /// rors-cmip-confirmed-event-report (0x0201).
    case eventReportResult(PHDEvent)
    /// roiv-cmip-get (0x0103): the object and the attributes asked for (none: all).
    case get(handle: UInt16, attributeIDs: [UInt16])
    /// rors-cmip-get (0x0203).
    case getResult(handle: UInt16, attributes: [PHDAttribute])
    /// roiv-cmip-action (0x0106) or roiv-cmip-confirmed-action (0x0107).
    case action(handle: UInt16, type: UInt16, arguments: [UInt8], confirmed: Bool)
    /// rors-cmip-confirmed-action (0x0207).
    case actionResult(handle: UInt16, type: UInt16, result: [UInt8])
    /// roer (0x0300): an error answer.
    case error(code: UInt16, parameter: [UInt8])
    /// rorj (0x0400): a rejected request.
    case reject(problem: UInt16)

    package static let getAction: UInt16 = 0x0C0D
    package static let transferAction: UInt16 = 0x0C1C

    var choice: UInt16 {
        switch self {
        case .eventReport(_, let confirmed): confirmed ? 0x0101 : 0x0100
        case .eventReportResult: 0x0201
        case .get: 0x0103
        case .getResult: 0x0203
        case .action(_, _, _, let confirmed): confirmed ? 0x0107 : 0x0106
        case .actionResult: 0x0207
        case .error: 0x0300
        case .reject: 0x0400
        }
    }

    package var name: String {
        switch self {
        case .eventReport(let event, let confirmed):
            (confirmed ? "confirmed " : "") + "event report " + Self.eventName(event.type)
        case .eventReportResult(let event): "event report response " + Self.eventName(event.type)
        case .get(let handle, _): "GET on handle \(handle)"
        case .getResult(let handle, _): "GET response for handle \(handle)"
        case .action(let handle, let type, _, _): "ACTION \(Self.actionName(type)) on handle \(handle)"
        case .actionResult(_, let type, _): "ACTION response \(Self.actionName(type))"
        case .error(let code, _): "error response (code \(code))"
        case .reject(let problem): "reject (problem \(problem))"
        }
    }

    static func eventName(_ type: UInt16) -> String {
        switch type {
        case PHDEvent.configuration: "MDC_NOTI_CONFIG"
        case PHDEvent.segmentData: "MDC_NOTI_SEGMENT_DATA"
        default: "0x" + phdHex16(type)
        }
    }

    static func actionName(_ type: UInt16) -> String {
        switch type {
        case getAction: "MDC_ACT_SEG_GET_INFO"
        case transferAction: "MDC_ACT_SEG_TRIG_XFER"
        default: "0x" + phdHex16(type)
        }
    }

    init(choice: UInt16, _ reader: inout MDERReader) throws(AccuChekError) {
        switch choice {
        case 0x0100, 0x0101, 0x0201:
            let event = PHDEvent(
                handle: try reader.u16("obj-handle"), time: try reader.u32("event time"), type: try reader.u16("event type"),
                info: try reader.lengthPrefixed("event info"))
            self = choice == 0x0201 ? .eventReportResult(event) : .eventReport(event, confirmed: choice == 0x0101)
        case 0x0103:
            let handle = try reader.u16("obj-handle")
            let count = try reader.u16("attribute-id-list count")
            var list = try reader.nested("attribute-id-list")
            var ids: [UInt16] = []
            for _ in 0..<count { ids.append(try list.u16("attribute id")) }
            try list.expectEnd()
            self = .get(handle: handle, attributeIDs: ids)
        case 0x0203:
            self = .getResult(handle: try reader.u16("obj-handle"), attributes: try PHDAttribute.list(&reader, "attribute list"))
        case 0x0106, 0x0107:
            self = .action(
                handle: try reader.u16("obj-handle"), type: try reader.u16("action type"),
                arguments: try reader.lengthPrefixed("action arguments"), confirmed: choice == 0x0107)
        case 0x0207:
            self = .actionResult(
                handle: try reader.u16("obj-handle"), type: try reader.u16("action type"), result: try reader.lengthPrefixed("action result"))
        case 0x0300:
            self = .error(code: try reader.u16("error value"), parameter: try reader.lengthPrefixed("error parameter"))
        case 0x0400:
            self = .reject(problem: try reader.u16("reject problem"))
        default:
            throw .malformedAPDU(apdu: reader.apdu, offset: reader.offset - 4, reason: "unknown data-APDU choice 0x\(phdHex16(choice))")
        }
    }

    func encode(into writer: inout MDERWriter) {
        switch self {
        case .eventReport(let event, _), .eventReportResult(let event):
            writer.u16(event.handle)
            writer.u32(event.time)
            writer.u16(event.type)
            writer.lengthPrefixed { $0.append(event.info) }
        case .get(let handle, let ids):
            writer.u16(handle)
            writer.u16(UInt16(ids.count))
            writer.lengthPrefixed { list in ids.forEach { list.u16($0) } }
        case .getResult(let handle, let attributes):
            writer.u16(handle)
            PHDAttribute.encode(attributes, into: &writer)
        case .action(let handle, let type, let arguments, _), .actionResult(let handle, let type, let arguments):
            writer.u16(handle)
            writer.u16(type)
            writer.lengthPrefixed { $0.append(arguments) }
        case .error(let code, let parameter):
            writer.u16(code)
            writer.lengthPrefixed { $0.append(parameter) }
        case .reject(let problem):
            writer.u16(problem)
        }
    }
}

/// Reads MDER fields from an APDU, within `end`; offsets count from the APDU's first byte, so
/// errors name the byte where the APDU went wrong.
package struct MDERReader {
    let bytes: [UInt8]
    let apdu: String
    private(set) var offset: Int
    let end: Int

    init(_ bytes: [UInt8], apdu: String, offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.apdu = apdu
        self.offset = offset
        self.end = min(end ?? bytes.count, bytes.count)
    }

    private mutating func take(_ count: Int, _ field: String) throws(AccuChekError) -> ArraySlice<UInt8> {
        guard count <= end - offset else {
            throw .malformedAPDU(apdu: apdu, offset: offset, reason: "\(field) needs \(count) bytes but \(max(0, end - offset)) are left")
        }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func u8(_ field: String) throws(AccuChekError) -> UInt8 { try take(1, field).first! }

    mutating func u16(_ field: String) throws(AccuChekError) -> UInt16 {
        let part = try take(2, field)
        return UInt16(part[part.startIndex]) << 8 | UInt16(part[part.startIndex + 1])
    }

    mutating func u32(_ field: String) throws(AccuChekError) -> UInt32 {
        let part = try take(4, field)
        return part.reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func octets(_ count: Int, _ field: String) throws(AccuChekError) -> [UInt8] { Array(try take(count, field)) }

    /// A 16-bit length and that many bytes.
    mutating func lengthPrefixed(_ field: String) throws(AccuChekError) -> [UInt8] {
        let at = offset
        let length = Int(try u16("\(field) length"))
        guard length <= end - offset else {
            throw .malformedAPDU(
                apdu: apdu, offset: at, reason: "\(field) length \(length) runs past the \(max(0, end - offset)) bytes left")
        }
        return try octets(length, field)
    }

    /// A reader over a 16-bit length's worth of bytes, which this reader steps over.
    mutating func nested(_ field: String) throws(AccuChekError) -> MDERReader {
        let start = offset + 2
        let content = try lengthPrefixed(field)
        return MDERReader(bytes, apdu: apdu, offset: start, end: start + content.count)
    }

    /// Fails when bytes are left over.
    func expectEnd() throws(AccuChekError) {
        guard offset == end else {
            throw .malformedAPDU(apdu: apdu, offset: offset, reason: "\(end - offset) bytes more than its lengths account for")
        }
    }

    var remaining: Int { end - offset }
}

/// Writes MDER fields.
package struct MDERWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
    mutating func u32(_ value: UInt32) {
        bytes += [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
        ]
    }
    mutating func append(_ more: [UInt8]) { bytes += more }

    /// Writes what `body` writes, preceded by its 16-bit length.
    mutating func lengthPrefixed(_ body: (inout MDERWriter) -> Void) {
        var inner = MDERWriter()
        body(&inner)
        u16(UInt16(inner.bytes.count))
        bytes += inner.bytes
    }
}

func phdHex16(_ value: UInt16) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - digits.count) + digits
}

/// Cuts a byte stream into whole APDUs: each is its 4-byte header and the length the header
/// gives, however the USB packets split it.
public struct PHDAPDUAssembler: Sendable {
    private var buffer: [UInt8] = []

    public init() {}

    public mutating func append(_ bytes: [UInt8]) { buffer += bytes }

    /// How many bytes are held that are not a whole APDU yet.
    package var bufferedCount: Int { buffer.count }

    /// The next whole APDU's bytes, or nil when more are needed.
    public mutating func next() -> [UInt8]? {
        guard buffer.count >= 4 else { return nil }
        let total = 4 + (Int(buffer[2]) << 8 | Int(buffer[3]))
        guard buffer.count >= total else { return nil }
        let apdu = Array(buffer[..<total])
        buffer.removeFirst(total)
        return apdu
    }
}
