import Foundation
import Transport

/// AES-128 encryption of one 16-byte block (FIPS-197), all a Huami band's authentication needs:
/// the band's random number encrypted with the auth key (ECB, one block). Checked against the
/// FIPS-197 examples (Appendix B and C.1) in the tests.
public struct AES128: Sendable {
    private let roundKeys: [UInt8]

    public init(key: [UInt8]) {
        precondition(key.count == 16, "AES-128 takes a 16-byte key")
        var words = key
        var rcon: UInt8 = 0x01
        for index in 4..<44 {
            var word = Array(words[(index - 1) * 4..<index * 4])
            if index % 4 == 0 {
                word = [Self.sbox[Int(word[1])] ^ rcon, Self.sbox[Int(word[2])], Self.sbox[Int(word[3])], Self.sbox[Int(word[0])]]
                rcon = Self.double(rcon)
            }
            for byte in 0..<4 { words.append(words[(index - 4) * 4 + byte] ^ word[byte]) }
        }
        roundKeys = words
    }

    /// The 16-byte block encrypted.
    public func encrypt(_ block: [UInt8]) -> [UInt8] {
        precondition(block.count == 16, "AES encrypts 16-byte blocks")
        var state = block
        addRoundKey(&state, 0)
        for round in 1...10 {
            for index in 0..<16 { state[index] = Self.sbox[Int(state[index])] }
            // Shift rows: the state is column-major, row r moves r columns left.
            let shifted = state
            for column in 0..<4 {
                for row in 0..<4 { state[column * 4 + row] = shifted[((column + row) % 4) * 4 + row] }
            }
            if round < 10 {
                for column in 0..<4 {
                    let a = Array(state[column * 4..<column * 4 + 4])
                    let d = a.map(Self.double)
                    state[column * 4] = d[0] ^ d[1] ^ a[1] ^ a[2] ^ a[3]
                    state[column * 4 + 1] = a[0] ^ d[1] ^ d[2] ^ a[2] ^ a[3]
                    state[column * 4 + 2] = a[0] ^ a[1] ^ d[2] ^ d[3] ^ a[3]
                    state[column * 4 + 3] = d[0] ^ a[0] ^ a[1] ^ a[2] ^ d[3]
                }
            }
            addRoundKey(&state, round)
        }
        return state
    }

    private func addRoundKey(_ state: inout [UInt8], _ round: Int) {
        for index in 0..<16 { state[index] ^= roundKeys[round * 16 + index] }
    }

    /// Multiplication by x in GF(2⁸) modulo x⁸ + x⁴ + x³ + x + 1.
    private static func double(_ value: UInt8) -> UInt8 {
        (value << 1) ^ (value & 0x80 != 0 ? 0x1B : 0)
    }

    /// The S-box, computed from its definition (the multiplicative inverse in GF(2⁸), then the
    /// affine map with 0x63), FIPS-197 §5.1.1.
    private static let sbox: [UInt8] = {
        var box = [UInt8](repeating: 0, count: 256)
        var p: UInt8 = 1
        var q: UInt8 = 1
        repeat {
            // p walks the powers of 3, q those of its inverse (1/3).
            p = p ^ double(p)
            q ^= q << 1
            q ^= q << 2
            q ^= q << 4
            if q & 0x80 != 0 { q ^= 0x09 }
            let r = q ^ rotl(q, 1) ^ rotl(q, 2) ^ rotl(q, 3) ^ rotl(q, 4)
            box[Int(p)] = r ^ 0x63
        } while p != 1
        box[0] = 0x63
        return box
    }()

    private static func rotl(_ value: UInt8, _ count: UInt8) -> UInt8 {
        (value << count) | (value >> (8 - count))
    }
}

/// The messages of the authentication characteristic [Gadgetbridge
/// service/devices/huami/operations/init/InitOperation.java]: glucobridge asks for a random
/// number (`02 00`), the band answers `10 02 01` and 16 random bytes, glucobridge sends them
/// encrypted with the auth key (`03 00` and 16 bytes), and the band answers `10 03 01` (or a
/// failure status, `10 03 04`, for a wrong key). The key itself is never sent.
public enum HuamiAuthMessage: Sendable, Equatable {
    case requestRandom
    case random([UInt8])
    case encryptedRandom([UInt8])
    /// The band's verdict on the encrypted number: status 0x01 is success.
    case verdict(status: UInt8)
    /// `10 02 <status ≠ 01>`: the band would not give a number.
    case randomRefused(status: UInt8)

    private static let characteristic = HuamiCharacteristic.auth.description

    public var bytes: [UInt8] {
        switch self {
        case .requestRandom: [0x02, 0x00]
        case .random(let number): [0x10, 0x02, 0x01] + number
        case .encryptedRandom(let block): [0x03, 0x00] + block
        case .verdict(let status): [0x10, 0x03, status]
        case .randomRefused(let status): [0x10, 0x02, status]
        }
    }

    /// A message the band sends (`10 …`). The command's low four bits are what counts: newer
    /// bands set crypt flags in the high ones.
    public static func decodeAnswer(_ bytes: [UInt8]) throws(HuamiError) -> HuamiAuthMessage {
        var reader = HuamiReader(bytes, characteristic)
        let mark = try reader.u8("answer mark")
        guard mark == 0x10 else { throw .notAnAnswer(characteristic: characteristic, found: mark) }
        let command = try reader.u8("command") & 0x0F
        let status = try reader.u8("status")
        switch command {
        case 0x02 where status == 0x01:
            let number = try reader.take(16, "random number")
            return .random(number)
        case 0x02: return .randomRefused(status: status)
        case 0x03: return .verdict(status: status)
        default:
            throw .invalidField(
                characteristic: characteristic, field: "command", offset: 1,
                reason: "is 0x\(Hex.encode([command])), not an authentication answer (02, 03)")
        }
    }

    /// A message glucobridge sends, as the band reads it; nil for any other value.
    public static func decodeRequest(_ bytes: [UInt8]) -> HuamiAuthMessage? {
        switch bytes.first.map({ $0 & 0x0F }) {
        case 0x02: .requestRandom
        case 0x03 where bytes.count == 18: .encryptedRandom(Array(bytes[2...]))
        default: nil
        }
    }
}

/// The auth keys of the user's Huami bands, never in this repository: each band's key comes from
/// the vendor's servers (the `huami-token` tool on PyPI prints it). A key file holds one
/// `ADDRESS = 0xKEY` line per band (32 hex digits; other lines and `#` comments are ignored):
///
/// ```
/// C8:0F:10:12:34:56 = 0x0123456789abcdef0123456789abcdef
/// ```
package struct HuamiAuthKeys: Sendable, Equatable {
    package var keys: [BluetoothAddress: [UInt8]]
    /// Where they were read from.
    package var origin: String

    package init(keys: [BluetoothAddress: [UInt8]], origin: String) {
        self.keys = keys
        self.origin = origin
    }

    /// The key file's name in the configuration folder.
    package static let fileName = "huami.keys"

    /// Keys the program itself supplies (the tests, a lab device), looked at before any file.
    private static let supplied = SuppliedKeys()

    /// Adds `key` for the band at `address` for this process (nil: takes it back).
    package static func supply(_ key: [UInt8]?, for address: BluetoothAddress) {
        supplied.set(key, for: address)
    }

    /// Reads a key file's text; `origin` names it in errors.
    package static func parse(_ text: String, origin: String) throws(HuamiKeyFileError) -> HuamiAuthKeys {
        var keys: [BluetoothAddress: [UInt8]] = [:]
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = (rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { continue }
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let address = BluetoothAddress(parts[0].trimmingCharacters(in: .whitespaces)) else {
                throw HuamiKeyFileError(reason: "\(origin) line \(number + 1): not `ADDRESS = 0xKEY` (a Bluetooth address such as C8:0F:10:12:34:56)")
            }
            var hex = parts[1].trimmingCharacters(in: .whitespaces)
            if hex.hasPrefix("0x") || hex.hasPrefix("0X") { hex.removeFirst(2) }
            guard hex.count == 32, let key = Hex.decode(Substring(hex)), key.count == 16 else {
                throw HuamiKeyFileError(reason: "\(origin) line \(number + 1): the key of \(address) is not 32 hex digits")
            }
            guard keys[address] == nil else {
                throw HuamiKeyFileError(reason: "\(origin) line \(number + 1): \(address) is given twice")
            }
            keys[address] = key
        }
        return HuamiAuthKeys(keys: keys, origin: origin)
    }

    /// The key files looked for, in order: `GLUCOBRIDGE_HUAMI_KEYS` when set (and then only it),
    /// else `$XDG_CONFIG_HOME/glucobridge/huami.keys` (`~/.config/glucobridge/…`), then
    /// `/etc/glucobridge/huami.keys` — as the FreeStyle Libre keys are found.
    package static func keyFiles(environment: [String: String]) -> [String] {
        KeyFileLocations.paths(fileName: fileName, environmentVariable: "GLUCOBRIDGE_HUAMI_KEYS", environment: environment)
    }

    /// The key of the band at `address` and where it came from: a key supplied by the program,
    /// else the first key file that exists (a key file that exists but is not valid is an
    /// error; it is never skipped for the next one).
    package static func key(
        for address: BluetoothAddress, band: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(HuamiError) -> (key: [UInt8], origin: String) {
        if let key = supplied.key(for: address) { return (key, "the key supplied to this process") }
        let files = keyFiles(environment: environment)
        for file in files where FileManager.default.fileExists(atPath: file) {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw .keyFile(reason: "\(file) cannot be read (check its permissions)")
            }
            let keys: HuamiAuthKeys
            do {
                keys = try parse(String(decoding: data, as: UTF8.self), origin: file)
            } catch {
                throw .keyFile(reason: error.reason)
            }
            guard let key = keys.keys[address] else { throw .authKeyMissing(band: band, searched: [file]) }
            return (key, file)
        }
        throw .authKeyMissing(band: band, searched: files)
    }
}

/// A key file that is not valid, naming the file and line.
package struct HuamiKeyFileError: Error, Equatable, Sendable, CustomStringConvertible {
    package var reason: String
    package var description: String { reason }
}

/// The keys supplied by the program, behind a lock.
private final class SuppliedKeys: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [BluetoothAddress: [UInt8]] = [:]

    func set(_ key: [UInt8]?, for address: BluetoothAddress) {
        lock.withLock { keys[address] = key }
    }

    func key(for address: BluetoothAddress) -> [UInt8]? {
        lock.withLock { keys[address] }
    }
}
