import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-file reads through POSIX calls, so a failure carries the system's own reason
/// ("No such file or directory", "Permission denied", "Is a directory").
package enum FileBytes {
    /// The file's bytes, or the reason they could not be read.
    package static func contents(ofPath path: String) -> Result<[UInt8], FileReadFailure> {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return .failure(FileReadFailure(errno: errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(FileReadFailure(errno: errno)) }

        // Read straight into the array, sized from fstat; a file that grows meanwhile is read on
        // in chunks.
        var failure: FileReadFailure?
        var bytes = [UInt8](unsafeUninitializedCapacity: max(Int(info.st_size), 0)) { buffer, count in
            switch fill(UnsafeMutableRawBufferPointer(buffer), from: fd) {
            case .success(let filled): count = filled
            case .failure(let reason): failure = reason
            }
        }
        if let failure { return .failure(failure) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            switch chunk.withUnsafeMutableBytes({ fill($0, from: fd) }) {
            case .failure(let reason): return .failure(reason)
            case .success(0): return .success(bytes)
            case .success(let filled): bytes.append(contentsOf: chunk[0..<filled])
            }
        }
    }

    /// The first `count` bytes of the file (fewer when it is shorter), or nil when it cannot be
    /// read: enough to tell a capture format by its magic number.
    package static func prefix(ofPath path: String, count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        guard case .success(let filled) = bytes.withUnsafeMutableBytes({ fill($0, from: fd) }) else { return nil }
        return Array(bytes[..<filled])
    }

    /// Reads from `fd` until `buffer` is full or the file ends (a read interrupted by a signal is
    /// made again): how many bytes were read, or why reading failed.
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer, from fd: Int32) -> Result<Int, FileReadFailure> {
        var filled = 0
        while filled < buffer.count {
            let got = read(fd, buffer.baseAddress! + filled, buffer.count - filled)
            if got < 0 {
                if errno == EINTR { continue }
                return .failure(FileReadFailure(errno: errno))
            }
            if got == 0 { break }
            filled += got
        }
        return .success(filled)
    }
}

/// Why a file could not be read, as the operating system words it.
package struct FileReadFailure: Error {
    package let reason: String

    package init(errno code: Int32) {
        reason = String(cString: strerror(code))
    }
}
