import Model

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why an export could not be written out.
package enum ExportOutputError: Error, Equatable, CustomStringConvertible {
    /// The reading end went away (EPIPE): the program reading the export stopped reading.
    case closed(afterBytes: Int)
    /// `write(2)` failed with `errno`.
    case failed(afterBytes: Int, errno: Int32)

    package var description: String {
        switch self {
        case .closed(let bytes):
            "the output was closed after \(bytes) bytes (the program reading the export stopped reading); the export is incomplete"
        case .failed(let bytes, let code):
            "writing the export failed after \(bytes) bytes: \(String(cString: strerror(code))); the export is incomplete"
        }
    }
}

/// The bytes of an export, gathered in a buffer of about 64 KiB and written to a file
/// descriptor with `write(2)` each time it fills (``endRow()``), or kept in memory.
package struct ExportOutput {
    /// The buffer is written out once it holds this many bytes.
    package static let capacity = 65_536

    private let descriptor: Int32?
    /// What is not written yet; with no descriptor, everything.
    package internal(set) var bytes: [UInt8] = []
    /// Bytes written to the descriptor so far.
    package private(set) var written = 0

    /// An output written to `descriptor` (standard output by default).
    package init(descriptor: Int32 = STDOUT_FILENO) {
        self.descriptor = descriptor
        bytes.reserveCapacity(Self.capacity + 4096)
    }

    private init() {
        descriptor = nil
    }

    /// An output that keeps every byte in ``bytes``.
    package static func inMemory() -> ExportOutput { ExportOutput() }

    @inline(__always)
    package mutating func append(_ byte: UInt8) { bytes.append(byte) }

    @inline(__always)
    package mutating func append(_ text: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: text) }

    @inline(__always)
    package mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    package mutating func append(_ text: [UInt8]) { bytes.append(contentsOf: text) }

    package mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// `value` in decimal digits, with its sign when negative.
    package mutating func append(integer value: Int) { bytes.appendDigits(value, width: 1) }

    /// Ends a row: writes the buffer out when it is full.
    @inline(__always)
    package mutating func endRow() throws(ExportOutputError) {
        if bytes.count >= Self.capacity, descriptor != nil { try flush() }
    }

    /// Writes out what the buffer holds, all of it: short writes continue, an interrupted write
    /// is retried, a descriptor that would block is waited for.
    package mutating func flush() throws(ExportOutputError) {
        guard let descriptor, !bytes.isEmpty else { return }
        var failure: ExportOutputError?
        let done = bytes.withUnsafeBytes { buffer -> Int in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count > 0 {
                    offset += count
                    continue
                }
                let code = count < 0 ? errno : EIO
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK {
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                    continue
                }
                failure = code == EPIPE ? .closed(afterBytes: written + offset) : .failed(afterBytes: written + offset, errno: code)
                break
            }
            return offset
        }
        written += done
        bytes.removeAll(keepingCapacity: true)
        if let failure { throw failure }
    }
}
