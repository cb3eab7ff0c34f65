import Foundation

/// The spool folder's files: which ones are captures waiting to be imported, and where each goes
/// once it has been (`done/`) or could not be (`failed/`, with a `NAME.reason.txt` beside it).
///
/// A file is taken when it is complete: the watcher reports a file when it is renamed into the
/// folder or when a program that wrote it closes it, and a file found by a scan (at start-up, or
/// when events were lost) only once it has not changed for `settle`. Names that programs use
/// while they write — hidden names (`.x`), and `.part`, `.partial`, `.tmp`, `.crdownload`, `~`
/// endings — are never taken, so "write under a temporary name, then rename" always works.
package struct SpoolFolder: Sendable {
    package let url: URL

    package init(url: URL) {
        self.url = url.standardizedFileURL
    }

    package var done: URL { url.appendingPathComponent("done", isDirectory: true) }
    package var failed: URL { url.appendingPathComponent("failed", isDirectory: true) }

    /// Creates the folder and its `done/` and `failed/` subfolders when missing.
    package func prepare() throws(DaemonError) {
        for folder in [url, done, failed] {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw .spoolUnusable(path: folder.path, reason: error.localizedDescription)
            }
        }
    }

    /// Whether a file of this name may be a finished capture (see the type's documentation).
    package static func isCandidate(name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("."), !name.hasSuffix("~") else { return false }
        let lowered = name.lowercased()
        return ![".part", ".partial", ".tmp", ".crdownload"].contains { lowered.hasSuffix($0) }
    }

    /// A regular file waiting in the folder.
    package struct Entry: Sendable, Equatable {
        package var name: String
        package var modified: Date
    }

    /// The candidate files in the folder now, oldest first (then by name).
    package func entries() -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter(Self.isCandidate).compactMap { name -> Entry? in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(name).path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                let modified = attributes[.modificationDate] as? Date
            else { return nil }
            return Entry(name: name, modified: modified)
        }.sorted { ($0.modified, $0.name) < ($1.modified, $1.name) }
    }

    /// Whether `name` is still a candidate file in the folder (it may have been taken already).
    package func isWaiting(_ name: String) -> Bool {
        var isDirectory: ObjCBool = false
        return Self.isCandidate(name: name)
            && FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isDirectory)
            && !isDirectory.boolValue
    }

    /// Moves an imported file to `done/`, with `NAME.report.txt` holding `report`. Returns where it went.
    package func markDone(_ name: String, report: String) throws(DaemonError) -> URL {
        try move(name, to: done, note: report, noteSuffix: ".report.txt")
    }

    /// Moves a file that could not be imported to `failed/`, with `NAME.reason.txt` holding
    /// `reason`. Returns where it went.
    package func markFailed(_ name: String, reason: String) throws(DaemonError) -> URL {
        try move(name, to: failed, note: reason, noteSuffix: ".reason.txt")
    }

    private func move(_ name: String, to folder: URL, note: String, noteSuffix: String) throws(DaemonError) -> URL {
        let destination = Self.freeName(for: name, in: folder)
        do {
            try FileManager.default.moveItem(at: url.appendingPathComponent(name), to: destination)
            try Data((note.hasSuffix("\n") ? note : note + "\n").utf8)
                .write(to: URL(fileURLWithPath: destination.path + noteSuffix), options: .atomic)
        } catch {
            throw .spoolUnusable(path: folder.path, reason: "cannot move \(name) there: \(error.localizedDescription)")
        }
        return destination
    }

    /// `name`, or `name-2.ext`, `name-3.ext`, … when `folder` already holds a file of that name
    /// (the same capture dropped twice keeps both copies).
    static func freeName(for name: String, in folder: URL) -> URL {
        let fileManager = FileManager.default
        var candidate = folder.appendingPathComponent(name)
        let base = (name as NSString).deletingPathExtension
        let ext = (name as NSString).pathExtension
        var counter = 2
        while fileManager.fileExists(atPath: candidate.path) {
            candidate = folder.appendingPathComponent(ext.isEmpty ? "\(base)-\(counter)" : "\(base)-\(counter).\(ext)")
            counter += 1
        }
        return candidate
    }
}

/// Why the daemon cannot go on.
package enum DaemonError: Error, Equatable, CustomStringConvertible {
    case spoolUnusable(path: String, reason: String)
    /// The spool folder was removed or renamed while the daemon watched it.
    case spoolGone(path: String)

    package var description: String {
        switch self {
        case .spoolUnusable(let path, let reason): "the spool folder \(path) cannot be used: \(reason)"
        case .spoolGone(let path):
            "the spool folder \(path) was removed or renamed; the daemon stops so that its service manager restarts it and creates the folder again"
        }
    }
}
