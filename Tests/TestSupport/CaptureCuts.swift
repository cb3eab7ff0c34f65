import Foundation

/// Where a capture file can be cut so that it ends after a whole record: after each packet of a
/// pcap, each block of a pcapng, each record of a btsnoop file, each line of a transcript. A
/// capture cut there is what a recording that stopped early (a reader pulled out, a program
/// killed) leaves behind.
public enum CaptureCuts {
    /// The byte offsets just after each whole record, in order (the last one is the file's end
    /// when the file ends on a record boundary). Throws when the format is not recognised.
    public static func boundaries(of bytes: [UInt8]) throws -> [Int] {
        guard bytes.count >= 8 else { throw Unrecognised() }
        let magic = Array(bytes.prefix(4))
        if magic == [0xD4, 0xC3, 0xB2, 0xA1] || magic == [0x4D, 0x3C, 0xB2, 0xA1] {
            return walk(bytes, first: 24, header: 16) { Int(u32(bytes, $0 + 8, bigEndian: false)) }
        }
        if magic == [0xA1, 0xB2, 0xC3, 0xD4] || magic == [0xA1, 0xB2, 0x3C, 0x4D] {
            return walk(bytes, first: 24, header: 16) { Int(u32(bytes, $0 + 8, bigEndian: true)) }
        }
        if magic == [0x0A, 0x0D, 0x0D, 0x0A], bytes.count >= 12 {
            let bigEndian = Array(bytes[8..<12]) == [0x1A, 0x2B, 0x3C, 0x4D]
            var cuts: [Int] = []
            var offset = 0
            while offset + 12 <= bytes.count {
                let length = Int(u32(bytes, offset + 4, bigEndian: bigEndian))
                guard length >= 12, offset + length <= bytes.count else { break }
                offset += length
                cuts.append(offset)
            }
            return cuts
        }
        if Array(bytes.prefix(8)) == Array("btsnoop\0".utf8) {
            return walk(bytes, first: 16, header: 24) { Int(u32(bytes, $0 + 4, bigEndian: true)) }
        }
        // A transcript: text, one transfer a line.
        guard String(bytes: bytes, encoding: .utf8) != nil else { throw Unrecognised() }
        return bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
    }

    public struct Unrecognised: Error {}

    private static func walk(_ bytes: [UInt8], first: Int, header: Int, captured: (Int) -> Int) -> [Int] {
        var cuts: [Int] = []
        var offset = first
        while offset + header <= bytes.count {
            let end = offset + header + captured(offset)
            guard end <= bytes.count, end > offset else { break }
            offset = end
            cuts.append(offset)
        }
        return cuts
    }

    private static func u32(_ bytes: [UInt8], _ at: Int, bigEndian: Bool) -> UInt32 {
        let value = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
        return bigEndian ? value.byteSwapped : value
    }
}

/// Runs `body` on a thread of its own and waits at most `seconds` for it: nil when it did not
/// finish (the thread is left running; the caller fails the test), else its result. Lets a test
/// of something that must not hang fail instead of hanging the suite.
public func withWatchdog<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () throws -> T) -> Result<T, any Error>? {
    let box = WatchdogBox<T>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.result = Result { try body() }
        done.signal()
    }
    thread.stackSize = 8 << 20
    thread.start()
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    return box.result
}

/// The result a watchdog's thread leaves; read only after the thread signalled it is done.
private final class WatchdogBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
