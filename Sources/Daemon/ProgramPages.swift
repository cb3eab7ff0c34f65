import CProgramLayout
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Takes out of the daemon's memory the pages of its program file that it read while it started
/// or imported, once it is idle.
///
/// Most of an idle daemon's resident memory is not its own data: it is clean copies of the
/// executable's pages (code, read-only data, tables), mapped in from the page cache, which stay
/// mapped, and counted as resident, until the kernel needs the memory (docs/benchmarks.md, "The
/// idle daemon"). `releaseStartUpCode()` unmaps the code only the daemon's start-up runs, which
/// the release link places first; `release()` (`--release-idle-pages`) asks the kernel to
/// reclaim every such page, read back from the file when it is needed again.
///
/// Only pages that are still the file's own content are advised: `/proc/self/pagemap` tells each
/// present page's kind, and a page the program wrote (relocated pointers, `.data`) is an
/// anonymous copy that is left alone, so nothing is ever swapped out or lost.
package enum ProgramPages {
    /// A mapping of a file: `start..<end` in this process's address space.
    package struct Mapping: Equatable, Sendable {
        package var start: UInt
        package var end: UInt
        package var path: String
    }

    /// The mappings of the file at `path` in the text of a `/proc/PID/maps` file.
    package static func mappings(of path: String, inMaps maps: String) -> [Mapping] {
        maps.split(separator: "\n").compactMap { line -> Mapping? in
            // "start-end perms offset dev inode   path": the path is the rest after five fields.
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[5].trimmingCharacters(in: .whitespaces) == path else { return nil }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), start < end
            else { return nil }
            return Mapping(start: start, end: end, path: path)
        }
    }

    /// The executable file of this process, as `/proc/self/maps` names it.
    static var executablePath: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What `release()` found and advised.
    package struct Release: Equatable, Sendable {
        /// Bytes of the program file's pages that were resident and unchanged (advised).
        package var filePages: Int
        /// Bytes of pages the program has written in those mappings (kept).
        package var writtenPages: Int
    }

    /// Asks the kernel to reclaim the resident, unchanged pages of this program's file. Returns
    /// nil where `/proc` cannot tell (another system); the kernel may decline the advice (before
    /// Linux 5.4, or for a page another process maps too), which changes nothing.
    @discardableResult
    package static func release() -> Release? {
        guard let path = executablePath,
            let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        else { return nil }
        return advise(mappings(of: path, inMaps: maps), MADV_PAGEOUT)
    }

    /// Whether this program's code was laid out by Linker/glucobridge.order, the code only the
    /// daemon's start-up runs first (a release build on Linux).
    package static var startUpCodeComesFirst: Bool {
        #if ORDERED_PROGRAM_CODE
            true
        #else
            false
        #endif
    }

    /// Unmaps the program's code that only the daemon's start-up runs: the pages from the start
    /// of its code up to `glucobridge_start_up_code_end()`, where the release link places the
    /// functions that the daemon's starts run and its imports do not (Linker/glucobridge.order).
    ///
    /// This is `madvise(MADV_DONTNEED)` on pages that are still the file's own content: they
    /// leave this process's page tables, not the page cache, so nothing is read or written and a
    /// function in them that runs again maps its page back from the cache (or, if the kernel has
    /// reclaimed it meanwhile, from the file). The daemon maps less; the machine holds the same
    /// pages until it needs the memory. Returns what was advised, or nil where `/proc` cannot
    /// tell or the program's code is not laid out that way (a debug build, another system).
    @discardableResult
    package static func releaseStartUpCode() -> Release? {
        guard startUpCodeComesFirst, let path = executablePath,
            let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        else { return nil }
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let end = UInt(glucobridge_start_up_code_end()) & ~(pageSize - 1)
        // The program's code is the one mapping of its file that holds the marker.
        guard let code = mappings(of: path, inMaps: maps).first(where: { $0.start <= end && end < $0.end }) else { return nil }
        return advise([Mapping(start: code.start, end: end, path: path)], MADV_DONTNEED)
    }

    /// Gives `advice` for the runs of pages of `mappings` that are present and still the file's
    /// own content.
    static func advise(_ mappings: [Mapping], _ advice: Int32) -> Release? {
        let pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard pagemap >= 0 else { return nil }
        defer { _ = close(pagemap) }
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        var release = Release(filePages: 0, writtenPages: 0)
        var entries: [UInt64] = []
        for mapping in mappings where mapping.start < mapping.end {
            let pages = Int((mapping.end - mapping.start) / pageSize)
            entries = [UInt64](repeating: 0, count: pages)
            let wanted = pages * MemoryLayout<UInt64>.size
            let read = entries.withUnsafeMutableBytes {
                pread(pagemap, $0.baseAddress, wanted, off_t(mapping.start / pageSize) * off_t(MemoryLayout<UInt64>.size))
            }
            guard read == wanted else { continue }
            // A run of pages to advise: present (bit 63) and a page of the file (bit 61), per
            // the kernel's Documentation/admin-guide/mm/pagemap.rst.
            var runStart: Int?
            func advise(upTo end: Int) {
                guard let start = runStart else { return }
                let address = UnsafeMutableRawPointer(bitPattern: mapping.start + UInt(start) * pageSize)
                _ = madvise(address, Int(UInt(end - start) * pageSize), advice)
                runStart = nil
            }
            for (index, entry) in entries.enumerated() {
                let present = entry & (1 << 63) != 0
                let filePage = entry & (1 << 61) != 0
                if present && filePage {
                    release.filePages += Int(pageSize)
                    if runStart == nil { runStart = index }
                } else {
                    if present { release.writtenPages += Int(pageSize) }
                    advise(upTo: index)
                }
            }
            advise(upTo: entries.count)
        }
        return release
    }
}
