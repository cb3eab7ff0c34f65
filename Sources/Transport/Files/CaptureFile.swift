import Foundation

/// A capture file being written: every `write` goes straight to the operating system, so a crash
/// of this process loses nothing already appended.
package final class CaptureFile {
    package let name: String
    private var handle: FileHandle?

    /// Creates (or empties) the file at `url`.
    package init(url: URL) throws(FileWriteFailure) {
        name = url.lastPathComponent
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw FileWriteFailure(file: name, reason: "cannot create \(url.path) (missing folder or no permission)")
        }
        do {
            handle = try FileHandle(forWritingTo: url)
        } catch {
            throw FileWriteFailure(file: name, reason: error.localizedDescription)
        }
    }

    package func write(_ bytes: [UInt8]) throws(FileWriteFailure) {
        guard let handle else { throw FileWriteFailure(file: name, reason: "the writer is already closed") }
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw FileWriteFailure(file: name, reason: error.localizedDescription)
        }
    }

    /// Flushes to storage and closes; closing twice is harmless.
    package func close() throws(FileWriteFailure) {
        guard let handle else { return }
        self.handle = nil
        do {
            try handle.synchronize()
            try handle.close()
        } catch {
            throw FileWriteFailure(file: name, reason: error.localizedDescription)
        }
    }

    deinit {
        try? handle?.close()
    }
}

/// Why a capture file could not be created or written: its name and the operating system's reason.
package struct FileWriteFailure: Error, Equatable {
    package let file: String
    package let reason: String
}
