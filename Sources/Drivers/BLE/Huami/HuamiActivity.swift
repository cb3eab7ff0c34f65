import Foundation
import Model
import Transport

/// The vendor characteristics of a Huami band (Mi Band 2–6, Amazfit Bip, GTS, GTR; not Zepp OS)
/// that glucobridge uses: `0000000X-0000-3512-2118-0009af100700`, in services 0xFEE0 and 0xFEE1
/// [Gadgetbridge devices/huami/HuamiService.java; amazfit-pyclient fetch/data_fetch.py].
public enum HuamiCharacteristic: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// The fetch control point: start, fetch and acknowledge commands; the band's answers.
    case fetchControl = 0x04
    /// The activity data: notifications of packets, each a counter byte and data.
    case activityData = 0x05
    /// The authentication characteristic: request a random number, answer it encrypted.
    case auth = 0x09

    public var uuid: BluetoothUUID {
        BluetoothUUID(String(format: "000000%02x-0000-3512-2118-0009af100700", rawValue))!
    }

    public var name: String {
        switch self {
        case .fetchControl: "Huami fetch control point"
        case .activityData: "Huami activity data"
        case .auth: "Huami authentication"
        }
    }

    public var description: String { "\(name) (…\(String(format: "%04x", rawValue)))" }
}

/// What is wrong in what a Huami band sent or answered. Every case names the characteristic or
/// packet and the byte offset where decoding stopped.
public enum HuamiError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A value ends before a field.
    case shortValue(characteristic: String, field: String, offset: Int, needed: Int, available: Int)
    /// A value's first byte is not 0x10, the mark of an answer.
    case notAnAnswer(characteristic: String, found: UInt8)
    /// A value is longer or shorter than its kind allows.
    case unexpectedLength(characteristic: String, what: String, expected: [Int], found: Int)
    /// A field holds a value no band sends (a month of 13, a time zone beyond ±14 h).
    case invalidField(characteristic: String, field: String, offset: Int, reason: String)
    /// A data packet's counter (byte 0) is not the one due: a packet was lost or repeated. The
    /// data before it is kept.
    case packetCounter(packet: Int, expected: UInt8, found: UInt8)
    /// A data packet holds only its counter.
    case emptyPacket(packet: Int)
    /// The fetch ended with bytes that do not make a whole sample; they were left out.
    case partialSample(offset: Int, bytes: Int, sampleSize: Int)
    /// The data's CRC-32 (sent with the end of the fetch) differs from the data received.
    case crcMismatch(carried: UInt32, computed: UInt32)
    /// The band answered a command with a failure status.
    case refused(command: String, status: UInt8)
    /// The band did not answer a command.
    case unanswered(command: String, seconds: Int)
    /// No auth key is known for the band.
    case authKeyMissing(band: String, searched: [String])
    /// The band refused the auth key.
    case authRefused(band: String, origin: String, status: UInt8)
    /// The key file is not valid (names the file and line).
    case keyFile(reason: String)

    /// How a user gets the auth key of their band.
    public static let howToGetKey = """
        a Huami band's auth key comes from the vendor's servers: `pip install huami-token`, then `huami-token --method amazfit \
        --email EMAIL --password PASSWORD --bt_keys` prints each band's MAC address and auth key; put `ADDRESS = 0xKEY` in \
        ~/.config/glucobridge/\(HuamiAuthKeys.fileName) (see docs/devices.md, "Huami bands")
        """

    public var description: String {
        switch self {
        case .shortValue(let characteristic, let field, let offset, let needed, let available):
            return "\(characteristic) at byte \(offset): the value ends before its \(field) (\(needed) byte\(needed == 1 ? "" : "s") needed, "
                + "\(available) left)"
        case .notAnAnswer(let characteristic, let found):
            return "\(characteristic) at byte 0: 0x\(Hex.encode([found])) where an answer starts with 0x10"
        case .unexpectedLength(let characteristic, let what, let expected, let found):
            return "\(characteristic): \(what) of \(found) bytes where \(expected.map(String.init).joined(separator: " or ")) are allowed"
        case .invalidField(let characteristic, let field, let offset, let reason):
            return "\(characteristic) at byte \(offset): \(field) \(reason)"
        case .packetCounter(let packet, let expected, let found):
            return "Huami activity data packet \(packet) at byte 0: counter \(found) where \(expected) was due (a packet was lost "
                + "or repeated); the samples before it were kept"
        case .emptyPacket(let packet):
            return "Huami activity data packet \(packet): only the counter byte, no data"
        case .partialSample(let offset, let bytes, let sampleSize):
            return "Huami activity data at byte \(offset) of the fetch: \(bytes) byte\(bytes == 1 ? "" : "s") left, not a whole "
                + "\(sampleSize)-byte sample; left out"
        case .crcMismatch(let carried, let computed):
            return
                "Huami fetch: the band's CRC-32 0x\(String(format: "%08X", carried)) differs from the data's 0x\(String(format: "%08X", computed)); "
                + "the fetch was not used"
        case .refused(let command, let status):
            return "the Huami band answered \(command) with status 0x\(Hex.encode([status])) instead of success (0x01)"
        case .unanswered(let command, let seconds):
            return "the Huami band did not answer \(command) within \(seconds) s"
        case .authKeyMissing(let band, let searched):
            return "no auth key for the Huami band \(band), found in none of: \(searched.joined(separator: ", ")); nothing was read: "
                + Self.howToGetKey
        case .authRefused(let band, let origin, let status):
            return "the Huami band \(band) refused the auth key from \(origin) (status 0x\(Hex.encode([status]))): the key is not "
                + "this band's, or it was paired again since; \(Self.howToGetKey)"
        case .keyFile(let reason):
            return reason
        }
    }
}

/// A bounds-checked reader over one Huami value, naming the characteristic in its errors.
struct HuamiReader {
    let bytes: [UInt8]
    let characteristic: String
    private(set) var offset = 0

    init(_ bytes: [UInt8], _ characteristic: String) {
        self.bytes = bytes
        self.characteristic = characteristic
    }

    mutating func take(_ count: Int, _ field: String) throws(HuamiError) -> [UInt8] {
        guard bytes.count - offset >= count else {
            throw .shortValue(characteristic: characteristic, field: field, offset: offset, needed: count, available: bytes.count - offset)
        }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func u8(_ field: String) throws(HuamiError) -> UInt8 { try take(1, field)[0] }

    mutating func u32(_ field: String) throws(HuamiError) -> UInt32 {
        let b = try take(4, field)
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }
}

/// A band's wall time with its UTC offset, as the fetch answers carry it: year (u16 LE), month,
/// day, hour, minute, second, then the offset in quarter hours (signed) [amazfit-pyclient
/// fetch/utils/timeutils.py `bytes_time`; Gadgetbridge HuamiSupport `fromTimeBytes`].
public struct HuamiTime: Sendable, Equatable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// The band's UTC offset, in quarter hours (+4 = UTC+01:00).
    public var quarterHours: Int

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int = 0, quarterHours: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.quarterHours = quarterHours
    }

    /// The wall time of `instant` at `quarterHours` from UTC.
    public init(_ instant: Date, quarterHours: Int) {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down)) + Int64(quarterHours) * 900
        let days = CivilDate.floorDiv(seconds, 86_400)
        let (year, month, day) = CivilDate.civil(fromDays: days)
        let ofDay = Int(seconds - days * 86_400)
        self.init(
            year: year, month: month, day: day, hour: ofDay / 3600, minute: ofDay / 60 % 60, second: ofDay % 60, quarterHours: quarterHours)
    }

    /// The instant it names.
    public var instant: Date {
        let days = CivilDate.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(quarterHours) * 900
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `UTC+05:45`.
    public var offsetText: String {
        let minutes = abs(quarterHours) * 15
        return "UTC" + (quarterHours < 0 ? "-" : "+") + String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }

    /// `2024-03-31 01:59:00 UTC+01:00`, as the band's clock read.
    public var description: String {
        String(format: "%04d-%02d-%02d %02d:%02d:%02d ", year, month, day, hour, minute, second) + offsetText
    }

    /// The eight bytes of an answer's time.
    public var bytes: [UInt8] {
        [
            UInt8(year & 0xFF), UInt8(year >> 8), UInt8(month), UInt8(day), UInt8(hour), UInt8(minute), UInt8(second),
            UInt8(bitPattern: Int8(quarterHours)),
        ]
    }

    static func read(_ reader: inout HuamiReader) throws(HuamiError) -> HuamiTime {
        let start = reader.offset
        let b = try reader.take(8, "start time")
        let time = HuamiTime(
            year: Int(b[0]) | Int(b[1]) << 8, month: Int(b[2]), day: Int(b[3]), hour: Int(b[4]), minute: Int(b[5]), second: Int(b[6]),
            quarterHours: Int(Int8(bitPattern: b[7])))
        func invalid(_ field: String, _ at: Int, _ reason: String) -> HuamiError {
            .invalidField(characteristic: reader.characteristic, field: field, offset: start + at, reason: reason)
        }
        guard (1...12).contains(time.month) else { throw invalid("month", 2, "is \(time.month), not 1–12") }
        let days = CivilDate.daysInMonth(year: time.year, month: time.month)
        guard (1...days).contains(time.day) else { throw invalid("day", 3, "is \(time.day), not 1–\(days)") }
        guard time.hour < 24 else { throw invalid("hour", 4, "is \(time.hour), not 0–23") }
        guard time.minute < 60 else { throw invalid("minute", 5, "is \(time.minute), not 0–59") }
        guard time.second < 60 else { throw invalid("second", 6, "is \(time.second), not 0–59") }
        guard abs(time.quarterHours) <= 56 else {
            throw invalid("time zone", 7, "is \(time.quarterHours) quarter hours, beyond ±14 h")
        }
        return time
    }
}

/// What glucobridge writes to the fetch control point [Gadgetbridge AbstractFetchOperation.java,
/// HuamiSupport `getTimeBytes`; amazfit-pyclient fetch/data_fetch.py].
public enum HuamiFetchCommand: Sendable, Equatable {
    /// `01 <type> <year u16 LE> <month> <day> <hour> <minute> 00 <quarter hours>`: start a fetch of
    /// `type` from the band's first record at or after `since`.
    case start(type: UInt8, since: HuamiTime)
    /// `02`: send the data.
    case fetch
    /// `03 09`: the data was received; keep it on the band (glucobridge never deletes from a
    /// device).
    case acknowledge

    /// Activity, the per-minute samples.
    public static let activityType: UInt8 = 0x01
    /// Sports summaries: one workout's summary a fetch [Gadgetbridge
    /// AmazfitBipService.COMMAND_ACTIVITY_DATA_TYPE_SPORTS_SUMMARIES].
    public static let sportsSummaryType: UInt8 = 0x05
    /// Sports details: one workout's records (GPS, heart rate, …), asked from its start
    /// [Gadgetbridge AmazfitBipService.COMMAND_ACTIVITY_DATA_TYPE_SPORTS_DETAILS].
    public static let sportsDetailType: UInt8 = 0x06

    public var bytes: [UInt8] {
        switch self {
        case .start(let type, let since):
            [
                0x01, type, UInt8(since.year & 0xFF), UInt8(since.year >> 8), UInt8(since.month), UInt8(since.day), UInt8(since.hour),
                UInt8(since.minute), 0x00, UInt8(bitPattern: Int8(since.quarterHours)),
            ]
        case .fetch: [0x02]
        case .acknowledge: [0x03, 0x09]
        }
    }

    /// The command in `bytes`, as the band reads it (the simulated band, and listening to a
    /// capture); nil for any other value.
    public static func decode(_ bytes: [UInt8]) -> HuamiFetchCommand? {
        switch bytes.first {
        case 0x01 where bytes.count == 10:
            return .start(
                type: bytes[1],
                since: HuamiTime(
                    year: Int(bytes[2]) | Int(bytes[3]) << 8, month: Int(bytes[4]), day: Int(bytes[5]), hour: Int(bytes[6]),
                    minute: Int(bytes[7]), quarterHours: Int(Int8(bitPattern: bytes[9]))))
        case 0x02 where bytes.count == 1: return .fetch
        case 0x03: return .acknowledge
        default: return nil
        }
    }
}

/// What the band answers on the fetch control point.
public enum HuamiFetchAnswer: Sendable, Equatable {
    /// `10 01 01 <count u32 LE> <start time, 8 bytes>` (a 16th byte, 0, on some models): the
    /// data to come (the number of bytes without the packet counters) and the time of its first
    /// sample.
    case started(count: UInt32, start: HuamiTime)
    /// `10 02 01`, with a CRC-32 of the data on some models: every packet was sent.
    case finished(crc: UInt32?)
    /// `10 03 01`: the acknowledgement was taken.
    case acknowledged
    /// `10 <command> <status ≠ 01>`.
    case failed(command: UInt8, status: UInt8)

    private static let characteristic = HuamiCharacteristic.fetchControl.description

    public static func decode(_ bytes: [UInt8]) throws(HuamiError) -> HuamiFetchAnswer {
        var reader = HuamiReader(bytes, characteristic)
        let mark = try reader.u8("answer mark")
        guard mark == 0x10 else { throw .notAnAnswer(characteristic: characteristic, found: mark) }
        let command = try reader.u8("command")
        let status = try reader.u8("status")
        guard status == 0x01 else { return .failed(command: command, status: status) }
        switch command {
        case 0x01:
            let count = try reader.u32("byte count")
            let start = try HuamiTime.read(&reader)
            guard bytes.count == 15 || (bytes.count == 16 && bytes[15] == 0) else {
                throw .unexpectedLength(characteristic: characteristic, what: "a start answer", expected: [15, 16], found: bytes.count)
            }
            return .started(count: count, start: start)
        case 0x02:
            switch bytes.count {
            case 3: return .finished(crc: nil)
            case 7: return .finished(crc: try reader.u32("CRC-32"))
            default:
                throw .unexpectedLength(characteristic: characteristic, what: "an end of fetch", expected: [3, 7], found: bytes.count)
            }
        case 0x03:
            return .acknowledged
        default:
            throw .invalidField(
                characteristic: characteristic, field: "command", offset: 1, reason: "is 0x\(Hex.encode([command])), not a fetch command (01, 02, 03)"
            )
        }
    }

    /// The bytes the band sends.
    public var bytes: [UInt8] {
        switch self {
        case .started(let count, let start):
            [0x10, 0x01, 0x01, UInt8(count & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 24)] + start.bytes
        case .finished(let crc):
            [0x10, 0x02, 0x01] + (crc.map { [UInt8($0 & 0xFF), UInt8($0 >> 8 & 0xFF), UInt8($0 >> 16 & 0xFF), UInt8($0 >> 24)] } ?? [])
        case .acknowledged: [0x10, 0x03, 0x01]
        case .failed(let command, let status): [0x10, command, status]
        }
    }
}

/// The layout of a band's per-minute sample [Gadgetbridge FetchActivityOperation.java
/// `createSample` / `createExtendedSample`, `getActivitySampleSize`; amazfit-pyclient
/// fetch/fetch_activity/data_fetcher.py].
public enum HuamiSampleForm: Int, Sendable, Equatable, CaseIterable {
    /// kind, intensity, steps, heart rate (Mi Band 2–4, Amazfit Bip, GTS, GTR).
    case short = 4
    /// the same, then unknown, sleep, deep sleep and REM sleep (Mi Band 5 and 6, Bip U, Bip 3,
    /// GTR 2, GTS 2, Zepp E).
    case extended = 8

    /// The form a band of this advertised name sends: the models Gadgetbridge gives 8-byte samples,
    /// else 4.
    public static func forBand(named name: String?) -> HuamiSampleForm {
        let folded = (name ?? "").lowercased().replacingOccurrences(of: " ", with: "")
        let extendedModels = ["band5", "band6", "bipu", "bip3", "gtr2", "gts2", "zeppe"]
        return extendedModels.contains { folded.contains($0) } ? .extended : .short
    }
}

/// One minute as the band stored it; every field is the byte it sent.
public struct HuamiActivitySample: Sendable, Equatable {
    /// What the band made of the minute (walking, running, sleep, not worn…; model-specific codes).
    public var kind: UInt8
    /// The band's movement intensity (0–255, no unit).
    public var intensity: UInt8
    public var steps: UInt8
    /// Beats/min; 0 and 255 mean none.
    public var heartRate: UInt8
    /// The extended form's four further bytes (unknown, sleep, deep sleep, REM sleep); nil in the
    /// short form.
    public var extra: [UInt8]?

    public init(kind: UInt8, intensity: UInt8, steps: UInt8, heartRate: UInt8, extra: [UInt8]? = nil) {
        self.kind = kind
        self.intensity = intensity
        self.steps = steps
        self.heartRate = heartRate
        self.extra = extra
    }

    /// The heart rate, unless the band marks it absent (0 or 255).
    public var beatsPerMinute: Int? { heartRate == 0 || heartRate == 255 ? nil : Int(heartRate) }

    public var bytes: [UInt8] { [kind, intensity, steps, heartRate] + (extra ?? []) }

    /// The whole samples in `data` (a fetch's bytes without packet counters), one a minute; bytes
    /// left over at the end are returned as a `partialSample` problem.
    public static func samples(in data: [UInt8], form: HuamiSampleForm) -> (samples: [HuamiActivitySample], problem: HuamiError?) {
        let size = form.rawValue
        var samples: [HuamiActivitySample] = []
        samples.reserveCapacity(data.count / size)
        var offset = 0
        while data.count - offset >= size {
            samples.append(
                HuamiActivitySample(
                    kind: data[offset], intensity: data[offset + 1], steps: data[offset + 2], heartRate: data[offset + 3],
                    extra: form == .extended ? Array(data[(offset + 4)..<(offset + 8)]) : nil))
            offset += size
        }
        let left = data.count - offset
        return (samples, left == 0 ? nil : .partialSample(offset: offset, bytes: left, sampleSize: size))
    }
}

/// The data of one fetch as its packets arrive: each packet's byte 0 counts from 0, wrapping
/// after 255 [Gadgetbridge AbstractFetchOperation `handleActivityData`; amazfit-pyclient
/// `handle_activity_data`]. A packet out of turn ends the fetch's data there.
public struct HuamiPacketStream: Sendable, Equatable {
    public private(set) var data: [UInt8] = []
    public private(set) var packets = 0
    /// Set once a packet was out of turn or empty; later packets are ignored.
    public private(set) var problem: HuamiError?

    public init() {}

    /// Takes one notification of the activity data characteristic.
    public mutating func take(_ packet: [UInt8]) {
        guard problem == nil else { return }
        packets += 1
        guard let counter = packet.first else {
            problem = .emptyPacket(packet: packets)
            return
        }
        let due = UInt8(truncatingIfNeeded: packets - 1)
        guard counter == due else {
            problem = .packetCounter(packet: packets, expected: due, found: counter)
            return
        }
        guard packet.count > 1 else {
            problem = .emptyPacket(packet: packets)
            return
        }
        data += packet.dropFirst()
    }

    /// Splits `data` into notifications of at most `size` bytes (counter included).
    public static func packets(of data: [UInt8], size: Int = 20) -> [[UInt8]] {
        let chunk = max(1, size - 1)
        return stride(from: 0, to: data.count, by: chunk).enumerated().map { index, start in
            [UInt8(truncatingIfNeeded: index)] + data[start..<min(data.count, start + chunk)]
        }
    }
}

/// CRC-32 (IEEE 802.3, reflected, as zlib), which some bands send with the end of a fetch.
public enum HuamiCRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
