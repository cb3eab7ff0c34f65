/// The read-only commands glucobridge sends a Verio, each in the register block it belongs to
/// (glucometer-protocols `src/lifescan/onetouch-verio-2015.md`): QUERY (E6 02), READ PARAMETER
/// of the unit (04 on block 4), READ RTC (20 02), READ RECORD COUNT (27 00) and READ RECORD
/// (31 02). WRITE RTC (20 01) and ERASE MEMORY (1A) are not among them: the meter's clock and
/// memory are left as they are.
public enum VerioCommand: Equatable, Sendable {
    case query(QuerySelector)
    case readUnit
    case readClock
    case recordCount
    case record(UInt16)

    public enum QuerySelector: UInt8, Sendable {
        case serial = 0x00
        case model = 0x01
        case software = 0x02
    }

    /// The block that carries most commands and their replies.
    package static let generalBlock: UInt32 = 3
    /// The block that carries READ PARAMETER.
    package static let parameterBlock: UInt32 = 4
    /// The unit parameter's selector.
    static let unitSelector: UInt8 = 0x04

    /// The block the command is written to and its reply read from.
    package var block: UInt32 {
        if case .readUnit = self { return Self.parameterBlock }
        return Self.generalBlock
    }

    /// The message, command prefix first.
    package var message: [UInt8] {
        let p = VerioFrame.prefix
        switch self {
        case .query(let selector): return [p, 0xE6, 0x02, selector.rawValue]
        case .readUnit: return [p, Self.unitSelector, 0x00]
        case .readClock: return [p, 0x20, 0x02]
        case .recordCount: return [p, 0x27, 0x00]
        case .record(let index): return [p, 0x31, 0x02, UInt8(index & 0xFF), UInt8(index >> 8), 0x00]
        }
    }

    /// The command a request message written to `block` is, whatever prefix (0x03, 0x04 or
    /// 0x05) it uses; nil for any other message.
    package init?(message: [UInt8], block: UInt32) {
        guard message.count >= 3, (0x03...0x05).contains(message[0]) else { return nil }
        let body = Array(message.dropFirst())
        switch (block, body[0], body[1]) {
        case (Self.parameterBlock, Self.unitSelector, _): self = .readUnit
        case (Self.generalBlock, 0xE6, 0x02) where body.count >= 3:
            guard let selector = QuerySelector(rawValue: body[2]) else { return nil }
            self = .query(selector)
        case (Self.generalBlock, 0x20, 0x02): self = .readClock
        case (Self.generalBlock, 0x27, 0x00): self = .recordCount
        case (Self.generalBlock, 0x31, 0x02) where body.count >= 4: self = .record(UInt16(body[2]) | UInt16(body[3]) << 8)
        default: return nil
        }
    }

    /// The request, as messages name it.
    package var name: String {
        switch self {
        case .query(.serial): "QUERY of the serial number"
        case .query(.model): "QUERY of the model"
        case .query(.software): "QUERY of the software version"
        case .readUnit: "READ PARAMETER of the unit"
        case .readClock: "READ RTC"
        case .recordCount: "READ RECORD COUNT"
        case .record(let index): "READ RECORD \(index)"
        }
    }
}

/// A stored result as READ RECORD returns it, after the prefix and status (glucometer-protocols
/// `onetouch-verio-2015.md`; the control-solution bit as Tidepool uploader's `oneTouchVerio.js`
/// reads it): the inverse record number (u16), a flags byte (bit 0: control solution), the
/// lifetime counter (u16, kept across memory erases), the meter's local time (u32, seconds since
/// 2000-01-01), the glucose in mg/dL (u16, whatever unit the meter displays), the meal flag
/// (0 none, 1 before, 2 after), then bytes not understood.
public struct VerioRecord: Equatable, Sendable {
    package var inverseNumber: UInt16
    package var flags: UInt8
    package var lifetimeCounter: UInt16
    package var meterSeconds: UInt32
    package var milligramsPerDeciliter: UInt16
    package var meal: UInt8
    /// The bytes after the meal flag, as the meter sent them.
    package var trailer: [UInt8]

    package init(
        inverseNumber: UInt16, flags: UInt8, lifetimeCounter: UInt16, meterSeconds: UInt32, milligramsPerDeciliter: UInt16, meal: UInt8,
        trailer: [UInt8] = [0x00, 0x00, 0x0B, 0x00]
    ) {
        self.inverseNumber = inverseNumber
        self.flags = flags
        self.lifetimeCounter = lifetimeCounter
        self.meterSeconds = meterSeconds
        self.milligramsPerDeciliter = milligramsPerDeciliter
        self.meal = meal
        self.trailer = trailer
    }

    /// The payload's length through the meal flag.
    static let minimumLength = 12
    /// Bit 0 of the flags: a control-solution test.
    public static let controlSolution: UInt8 = 0x01

    package init(payload: ArraySlice<UInt8>, index: Int) throws(VerioError) {
        let bytes = Array(payload)
        guard bytes.count >= Self.minimumLength else {
            throw .badRecord(index: index, reason: "\(bytes.count) bytes after the status, a record holds at least \(Self.minimumLength)")
        }
        inverseNumber = bytes.u16le(at: 0)
        flags = bytes[2]
        lifetimeCounter = bytes.u16le(at: 3)
        meterSeconds = bytes.u32le(at: 5)
        milligramsPerDeciliter = bytes.u16le(at: 9)
        meal = bytes[11]
        trailer = Array(bytes[12...])
    }

    /// The reply payload that holds this record.
    package var payload: [UInt8] {
        inverseNumber.littleEndianBytes + [flags] + lifetimeCounter.littleEndianBytes + meterSeconds.littleEndianBytes
            + milligramsPerDeciliter.littleEndianBytes + [meal] + trailer
    }

    package var isControlSolution: Bool { flags & Self.controlSolution != 0 }
}
