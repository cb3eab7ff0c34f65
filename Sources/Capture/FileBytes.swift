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
        let size = max(Int(info.st_size), 0)
        var failure: Int32?
        var bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            while count < size {
                let got = read(fd, buffer.baseAddress! + count, size - count)
                if got < 0, errno == EINTR { continue }
                if got < 0 { failure = errno }
                guard got > 0 else { break }
                count += got
            }
        }
        if let failure { return .failure(FileReadFailure(errno: failure)) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(FileReadFailure(errno: errno))
            }
            if count == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }
}

extension FileBytes {
    /// The first `count` bytes of the file (fewer when it is shorter), or nil when it cannot be
    /// read: enough to tell a capture format by its magic number.
    package static func prefix(ofPath path: String, count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, count - filled) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            filled += got
        }
        return Array(bytes[..<filled])
    }
}

/// Why a file could not be read, as the operating system words it.
package struct FileReadFailure: Error {
    package let reason: String

    package init(errno code: Int32) {
        reason = String(cString: strerror(code))
    }
}
