import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A new store's file as the schema's SQL makes it (``Migrations/createSchema(in:)``, stamped
/// with ``SharedStore/applicationID``, without the store's settings, its sync uid
/// ``placeholderUID``), written in one go when nothing is at a store's path: SQLite then reads
/// the schema once instead of parsing and running every `CREATE` of it, which takes about three
/// times the instructions (callgrind). The store then gets its own sync uid and its settings as
/// any new store does.
///
/// `encoded` is generated from the SQL (`NewStoreImageBytes.swift`); `NewStoreImageTests` holds
/// a store made from it to the schema the migrations make, and records it anew.
package enum NewStoreImage {
    /// The sync uid in the image, which no store keeps: opening a store for writing replaces it.
    static let placeholderUID = "00000000-0000-4000-8000-000000000000"

    /// Writes the image at `path` when nothing is there; false when it could not (something
    /// appeared at the path first, which is left as it is, or the folder does not take a file
    /// this way): the store is then made by its SQL, which reports any real error.
    ///
    /// The file is made unnamed in the folder (`O_TMPFILE`), written and synced, and only then
    /// linked at `path`, which fails when a file is already there: another program never sees a
    /// partial image, and no stray file is left if the process dies.
    static func create(at path: String) -> Bool {
        let folder = (path as NSString).deletingLastPathComponent
        guard let image = decode(encoded), !image.isEmpty, let descriptor = unnamedFile(in: folder.isEmpty ? "." : folder)
        else { return false }
        defer { close(descriptor) }
        let written = image.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        guard written, fsync(descriptor) == 0 else { return false }
        // https://man7.org/linux/man-pages/man2/open.2.html (O_TMPFILE): linkat through /proc.
        return linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0
    }

    /// Whether `folder`'s file system makes unnamed files (`O_TMPFILE`), which ``create(at:)``
    /// needs.
    package static func makesUnnamedFiles(in folder: String) -> Bool {
        guard let descriptor = unnamedFile(in: folder) else { return false }
        close(descriptor)
        return true
    }

    /// A new unnamed file in `folder`, open for writing (mode 0666 less the umask, as any new
    /// file: the system units' `UMask=0007` gives their group, the app's users, write access to
    /// the shared store; SQLite makes the WAL and shared-memory files with the store's mode), or
    /// nil where the file system makes none.
    private static func unnamedFile(in folder: String) -> Int32? {
        guard let temporaryFile else { return nil }
        let descriptor = open(folder, temporaryFile | O_WRONLY | O_CLOEXEC, 0o666)
        return descriptor >= 0 ? descriptor : nil
    }

    /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), which Swift does not import (the macro
    /// is an expression); `__O_TMPFILE` is 020000000 in asm-generic/fcntl.h, which x86-64 and
    /// arm64 use. Elsewhere none, and stores are made by their SQL.
    private static var temporaryFile: Int32? {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
            0o20000000 | O_DIRECTORY
        #else
            nil
        #endif
    }

    /// `bytes` as text for a Swift literal: base64 of runs, each the count of zero bytes before
    /// it and the count of the bytes after them (two LEB128 numbers), then those bytes. A new
    /// store's pages are mostly zeros.
    package static func encode(_ bytes: [UInt8]) -> String {
        var runs: [UInt8] = []
        func number(_ value: Int) {
            var rest = value
            repeat {
                runs.append(UInt8(rest & 0x7F) | (rest >= 0x80 ? 0x80 : 0))
                rest >>= 7
            } while rest > 0
        }
        var index = 0
        while index < bytes.count {
            let zeros = bytes[index...].prefix { $0 == 0 }.count
            index += zeros
            // A literal run ends at the next eight zero bytes (a shorter gap costs less inline).
            var end = index
            while end < bytes.count, !(bytes[end] == 0 && bytes[end..<min(end + 8, bytes.count)].allSatisfy { $0 == 0 }) {
                end += 1
            }
            number(zeros)
            number(end - index)
            runs += bytes[index..<end]
            index = end
        }
        return Data(runs).base64EncodedString()
    }

    /// The bytes `encode` wrote `text` from; nil when the text is not such an encoding. The
    /// runs are read twice: once for the length, then copied into bytes made zero at once.
    package static func decode(_ text: String) -> [UInt8]? {
        guard let runs = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { return nil }
        return runs.withUnsafeBytes { (runs: UnsafeRawBufferPointer) -> [UInt8]? in
            /// Each run: where its bytes start in `runs`, how many zeros come before them, how many they are.
            var parsed: [(start: Int, zeros: Int, count: Int)] = []
            var index = 0
            var length = 0
            func number() -> Int? {
                var value = 0
                var shift = 0
                while index < runs.count, shift < 63 {
                    let byte = runs[index]
                    index += 1
                    value |= Int(byte & 0x7F) << shift
                    if byte < 0x80 { return value }
                    shift += 7
                }
                return nil
            }
            while index < runs.count {
                guard let zeros = number(), let count = number(), count <= runs.count - index,
                    zeros <= 1 << 24, length + zeros + count <= 1 << 24
                else { return nil }
                parsed.append((index, zeros, count))
                length += zeros + count
                index += count
            }
            var bytes = [UInt8](repeating: 0, count: length)
            bytes.withUnsafeMutableBytes { bytes in
                var offset = 0
                for run in parsed {
                    offset += run.zeros
                    bytes.baseAddress!.advanced(by: offset).copyMemory(from: runs.baseAddress! + run.start, byteCount: run.count)
                    offset += run.count
                }
            }
            return bytes
        }
    }
}
