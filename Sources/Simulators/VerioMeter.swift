import Checksums
import Drivers
import Foundation
import Transport

/// A OneTouch Verio's disk in software: a small FAT16 image whose block 0 carries the meter's
/// signature, and the register blocks 3 and 4 answering LifeScan frames as
/// ``VerioDriver`` documents them. Everything it serves is synthetic. With another `vendor`
/// it stands for a disk that is not a meter: its blocks are then plain storage.
public final class VerioMeter: @unchecked Sendable {
    package let serial: String
    package let model: String
    /// 1: the meter displays mmol/L.
    package let unitParameter: UInt8
    /// The meter's clock, seconds since 2000-01-01 in its local time.
    package var clock: UInt32
    /// The records, the newest first, as the meter numbers them.
    package let records: [VerioRecord]
    /// INQUIRY's vendor identification.
    package let vendor: String
    /// The image's size in blocks.
    package let blockCount: UInt32 = 2048
    /// Replies whose CRC is spoilt (its last byte changed), by the number of the command (0 the
    /// first command written).
    package var spoiltReplies: Set<Int> = []

    /// Every block written, in order, with its bytes.
    package private(set) var writes: [(lba: UInt32, bytes: [UInt8])] = []
    /// Commands taken, as the host sent them.
    package private(set) var commands: [[UInt8]] = []
    /// How many READ RECORD commands were taken (the lab keys its faults on them).
    package private(set) var recordCommands = 0
    private var stored: [UInt32: [UInt8]] = [:]

    public init(
        serial: String, model: String = "OneTouch Verio", unitParameter: UInt8 = 0, clock: UInt32, records: [VerioRecord],
        vendor: String = "LifeScan"
    ) {
        self.serial = serial
        self.model = model
        self.unitParameter = unitParameter
        self.clock = clock
        self.records = records
        self.vendor = vendor
    }

    /// `count` records a minute apart at `every` seconds, the newest `newest` seconds after
    /// 2000-01-01, values from `values` in turn; lifetime counters from `firstCounter`.
    public static func history(
        count: Int, newest: UInt32, every: UInt32 = 10_800, values: [UInt16], firstCounter: UInt16 = 100, flags: [Int: UInt8] = [:],
        meals: [Int: UInt8] = [:]
    ) -> [VerioRecord] {
        (0..<count).map { i in
            VerioRecord(
                inverseNumber: UInt16(count - 1 - i), flags: flags[i] ?? 0, lifetimeCounter: firstCounter + UInt16(count - 1 - i),
                meterSeconds: newest - UInt32(i) * every, milligramsPerDeciliter: values[i % values.count], meal: meals[i] ?? 0)
        }
    }

    /// Standard INQUIRY data: a removable direct-access device, SPC-2, the vendor in bytes 8–15.
    package var inquiry: [UInt8] {
        var data: [UInt8] = [0x00, 0x80, 0x02, 0x02, 31, 0, 0, 0]
        data += Self.field(vendor, 8) + Self.field("", 16) + Self.field("", 4)
        return data
    }

    private static func field(_ text: String, _ width: Int) -> [UInt8] {
        let bytes = Array(text.utf8.prefix(width))
        return bytes + [UInt8](repeating: 0x20, count: width - bytes.count)
    }

    package var isLifeScan: Bool { vendor == VerioDriver.vendor }

    /// The block at `lba`.
    package func read(_ lba: UInt32) -> [UInt8] {
        if let block = stored[lba] { return block }
        switch lba {
        case 0: return bootSector
        case 8, 16: return [0xF8, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 508)
        default: return [UInt8](repeating: 0, count: 512)
        }
    }

    /// Takes a written block: a command on a meter's register, plain storage otherwise.
    package func write(_ lba: UInt32, _ bytes: [UInt8]) {
        writes.append((lba, bytes))
        guard isLifeScan, lba == VerioCommand.generalBlock || lba == VerioCommand.parameterBlock else {
            stored[lba] = bytes
            return
        }
        var reply = answer(bytes, block: lba)
        if spoiltReplies.contains(commands.count - 1), reply.count >= VerioFrame.overhead {
            let length = Int(reply[1]) | Int(reply[2]) << 8
            reply[length - 1] ^= 0xFF
        }
        stored[lba] = reply + [UInt8](repeating: 0, count: max(0, 512 - reply.count))
    }

    /// A FAT16 boot sector (Microsoft's FAT specification, the BIOS parameter block): 512-byte
    /// sectors, 4 per cluster, 8 reserved (the registers are among them), 2 FATs of 8 sectors,
    /// 512 root entries, label `LIFESCAN`.
    private var bootSector: [UInt8] {
        var b = [UInt8](repeating: 0, count: 512)
        b.replaceSubrange(0..<3, with: [0xEB, 0x3C, 0x90])
        b.replaceSubrange(3..<11, with: Array("MSWIN4.1".utf8))
        b.replaceSubrange(11..<13, with: UInt16(512).littleEndianBytes)
        b[13] = 4
        b.replaceSubrange(14..<16, with: UInt16(8).littleEndianBytes)
        b[16] = 2
        b.replaceSubrange(17..<19, with: UInt16(512).littleEndianBytes)
        b.replaceSubrange(19..<21, with: UInt16(truncatingIfNeeded: blockCount).littleEndianBytes)
        b[21] = 0xF8
        b.replaceSubrange(22..<24, with: UInt16(8).littleEndianBytes)
        b.replaceSubrange(24..<26, with: UInt16(32).littleEndianBytes)
        b.replaceSubrange(26..<28, with: UInt16(2).littleEndianBytes)
        b[36] = 0x80
        b[38] = 0x29
        b.replaceSubrange(39..<43, with: [0x15, 0x27, 0x66, 0x00])
        b.replaceSubrange(VerioDriver.signatureOffset..<VerioDriver.signatureOffset + 11, with: Self.field("LIFESCAN", 11))
        b.replaceSubrange(54..<62, with: Self.field("FAT16", 8))
        b[510] = 0x55
        b[511] = 0xAA
        return b
    }

    /// The reply frame to a command block.
    private func answer(_ block: [UInt8], block lba: UInt32) -> [UInt8] {
        guard let message = try? VerioFrame.decode(block, reply: "command") else { return VerioFrame.encode([VerioFrame.prefix, 0x15]) }
        commands.append(message)
        let prefix = message[0]
        func ok(_ payload: [UInt8]) -> [UInt8] { VerioFrame.encode([prefix, VerioFrame.success] + payload) }
        guard let command = VerioCommand(message: message, block: lba) else { return VerioFrame.encode([prefix, 0x15]) }
        switch command {
        case .query(let selector):
            let text = selector == .serial ? serial : selector == .model ? model : "02.04.05"
            return ok(text.utf16.flatMap { $0.littleEndianBytes } + [0, 0])
        case .readUnit: return VerioFrame.encode([VerioFrame.prefix, VerioFrame.success, unitParameter, 0, 0, 0])
        case .readClock: return ok(clock.littleEndianBytes)
        case .recordCount: return ok(UInt16(records.count).littleEndianBytes)
        case .record(let index):
            recordCommands += 1
            guard Int(index) < records.count else { return VerioFrame.encode([prefix, 0x15]) }
            return ok(records[Int(index)].payload)
        }
    }
}
