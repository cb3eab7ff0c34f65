// The idle daemon's footprint: resident memory by region and CPU over a quiet window, against a
// baseline process started in the same run. Run with:
//   swift build -c release --product glucobridge
//   swift run -c release glucobridge-daemon-bench [--program PATH] [--window SECONDS] [--capture FILE]
// It starts `glucobridge daemon --spool DIR --store FILE` (USB hotplug on) in a temporary folder,
// reads /proc/PID/smaps once the daemon has been quiet for `--settle` seconds, counts its CPU
// ticks and wake-ups (context switches of all its threads) over `--window` seconds, then drops a
// capture into the spool and reads its memory again once the import is done and it is quiet.
// The program file is dropped from the page cache first: the daemon starts as after a boot.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

struct Options {
    var program: String
    var window = 60.0
    var settle = 15.0
    var capture: String?
    /// Options given to the daemon, e.g. `--release-idle-pages`.
    var daemonOptions: [String] = []

    init(_ arguments: [String]) {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        program = here.appendingPathComponent("glucobridge").path
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { fail("\(flag) needs a value") }
            switch flag {
            case "--program": program = value
            case "--window": window = Double(value) ?? window
            case "--settle": settle = Double(value) ?? settle
            case "--capture": capture = value
            case "--daemon-option": daemonOptions.append(value)
            default:
                fail("unknown option \(flag); options: --program PATH --window SECONDS --settle SECONDS --capture FILE --daemon-option OPTION")
            }
        }
    }
}

/// The whole text of a /proc file (their size is 0, so Foundation's readers stop early).
func readProc(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { _ = close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("glucobridge-daemon-bench: \(message)\n".utf8))
    exit(1)
}

/// Resident memory of a process by region, in KiB, from /proc/PID/smaps.
struct Footprint {
    var total = 0
    /// Pages of the program file still as in the file (code, read-only data, tables).
    var programFile = 0
    /// Pages of the program's mappings it has written (relocated pointers, .data, .bss).
    var programWritten = 0
    /// Shared libraries (libc, libsqlite3, libusb, libstdc++ …), shared with other processes.
    var libraries = 0
    /// Anonymous memory: the malloc heap and arenas, thread stacks.
    var anonymous = 0
    var other = 0

    init(pid: Int32, program: String) {
        guard let smaps = readProc("/proc/\(pid)/smaps") else { return }
        var path = ""
        var rss = 0
        var isProgramBss = false
        var previousWasProgram = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), !first.hasSuffix(":") {
                path = fields.count >= 6 ? fields[5...].joined(separator: " ") : ""
                // The program's .bss follows its last file mapping as an anonymous one.
                isProgramBss = path.isEmpty && previousWasProgram
                previousWasProgram = path == program
                continue
            }
            guard fields.count >= 2, let kib = Int(fields[1]) else { continue }
            switch fields[0] {
            case "Rss:":
                rss = kib
                total += kib
            case "Anonymous:":
                if path == program {
                    programWritten += kib
                    programFile += rss - kib
                } else if isProgramBss {
                    programWritten += rss
                } else if path.hasPrefix("/") {
                    libraries += rss
                } else if path.isEmpty || path.hasPrefix("[heap]") || path.hasPrefix("[stack") {
                    anonymous += rss
                } else {
                    other += rss
                }
            default: break
            }
        }
    }

    static func megabytes(_ kib: Int) -> String { String(format: "%.1f MB", Double(kib) / 1024) }
}

/// utime + stime of a process (all its threads), in clock ticks.
func cpuTicks(_ pid: Int32) -> Int {
    guard let stat = readProc("/proc/\(pid)/stat"),
        let close = stat.lastIndex(of: ")")
    else { return -1 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // After the name: state is field 3, utime field 14, stime field 15 (proc(5)).
    return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
}

/// Context switches of each of the process's threads (by thread id and name), voluntary and
/// not: each is a wake-up.
func wakeUps(_ pid: Int32) -> [String: Int] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    var counts: [String: Int] = [:]
    for task in tasks {
        guard let status = readProc("/proc/\(pid)/task/\(task)/status") else { continue }
        let name = readProc("/proc/\(pid)/task/\(task)/comm")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
            counts["\(task) \(name)", default: 0] += Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        }
    }
    return counts
}

/// Wake-ups between two counts: of the threads that lived through the window, and of those
/// that started during it (a thread that ended took its count with it).
func wakeUpsBetween(_ before: [String: Int], _ after: [String: Int]) -> (total: Int, byThread: [String]) {
    var total = 0
    var byThread: [String] = []
    for (thread, count) in after.sorted(by: { $0.key < $1.key }) {
        let woke = count - (before[thread] ?? 0)
        total += woke
        if woke > 0 { byThread.append("\(thread): \(woke)") }
    }
    for thread in before.keys.sorted() where after[thread] == nil { byThread.append("\(thread): ended") }
    return (total, byThread)
}

func status(_ pid: Int32, _ key: String) -> Int {
    guard let text = readProc("/proc/\(pid)/status"),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") })
    else { return 0 }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
}

func threads(_ pid: Int32) -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.sorted().compactMap {
        (readProc("/proc/\(pid)/task/\($0)/comm"))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Writes the file at `path` to disk and drops its pages from the page cache, so that a program
/// started from it reads it from disk, as after a boot. How the file came into the cache (written
/// by the linker or `cp`, read by an earlier run) changes how the kernel maps it: a page the
/// linker has just written cannot be dropped until it is on disk, and pages written by `cp`
/// sit in larger blocks that a fault maps together (1 to 2 MB more of the daemon resident).
func dropFromPageCache(_ path: String) -> Bool {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { _ = close(fd) }
    return fsync(fd) == 0 && posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED)) == 0
}

func launch(_ path: String, _ arguments: [String], log: URL?) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    if let log {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
    } else {
        process.standardError = FileHandle.nullDevice
    }
    try process.run()
    return process
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
guard FileManager.default.isExecutableFile(atPath: options.program) else {
    fail("no program at \(options.program): build it first (swift build -c release --product glucobridge) or name it with --program")
}
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glucobridge-daemon-bench-\(getpid())")
try FileManager.default.createDirectory(at: folder.appendingPathComponent("spool"), withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let log = folder.appendingPathComponent("daemon.log")

let cold = dropFromPageCache(options.program)

// The baseline: the smallest long-running process at hand, coreutils' `sleep` (C, libc only).
let baseline = try launch("/bin/sleep", ["100000"], log: nil)
let daemon = try launch(
    options.program,
    ["daemon", "--spool", folder.appendingPathComponent("spool").path, "--store", folder.appendingPathComponent("store.sqlite").path]
        + options.daemonOptions,
    log: log)
defer {
    baseline.terminate()
    daemon.terminate()
    daemon.waitUntilExit()
}
let pid = daemon.processIdentifier

func waitForLog(_ text: String, patience: Double = 60) {
    let deadline = Date().addingTimeInterval(patience)
    while Date() < deadline {
        if let contents = try? String(contentsOf: log, encoding: .utf8), contents.contains(text) { return }
        if !daemon.isRunning { fail("the daemon exited: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")") }
        usleep(50_000)
    }
    fail("the daemon did not log \"\(text)\" within \(Int(patience)) s")
}

waitForLog("watching the spool folder")
print(
    "glucobridge daemon --spool DIR --store FILE \(options.daemonOptions.joined(separator: " ")) (USB hotplug on), pid \(pid); baseline: /bin/sleep")
print(
    cold ? "its program file read from disk (dropped from the page cache first)" : "its program file as the page cache holds it (could not drop it)")
print("waiting \(Int(options.settle)) s for the daemon to be idle …")
Thread.sleep(forTimeInterval: options.settle)

let idle = Footprint(pid: pid, program: URL(fileURLWithPath: options.program).resolvingSymlinksInPath().path)
let sleepFootprint = Footprint(pid: baseline.processIdentifier, program: "/usr/bin/sleep")
let peak = status(pid, "VmHWM")
func row(_ name: String, _ kib: Int) { print("  \(name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(Footprint.megabytes(kib))") }
print("\nresident memory, idle (/proc/PID/smaps):")
row("daemon, total", idle.total)
row("  program file pages (code, tables, read-only data)", idle.programFile)
row("  program pages written (relocations, data)", idle.programWritten)
row("  shared libraries", idle.libraries)
row("  heap, malloc arenas, thread stacks", idle.anonymous)
if idle.other > 0 { row("  other", idle.other) }
row("baseline /bin/sleep, total", sleepFootprint.total)
print(String(format: "  daemon / baseline: %.1f×", Double(idle.total) / Double(max(sleepFootprint.total, 1))))
row("daemon's peak while starting (VmHWM)", peak)
print("  threads: \(threads(pid).joined(separator: ", "))")

print("\nCPU over \(Int(options.window)) s idle:")
let (ticksBefore, wakeUpsBefore) = (cpuTicks(pid), wakeUps(pid))
let (baseTicksBefore, baseWakeUpsBefore) = (cpuTicks(baseline.processIdentifier), wakeUps(baseline.processIdentifier))
Thread.sleep(forTimeInterval: options.window)
let (ticksAfter, wakeUpsAfter) = (cpuTicks(pid), wakeUps(pid))
let (baseTicksAfter, baseWakeUpsAfter) = (cpuTicks(baseline.processIdentifier), wakeUps(baseline.processIdentifier))
let woke = wakeUpsBetween(wakeUpsBefore, wakeUpsAfter)
print(
    "  daemon: \(ticksAfter - ticksBefore) ticks (1/\(sysconf(Int32(_SC_CLK_TCK))) s), \(woke.total) wake-ups (context switches of its \(threads(pid).count) threads)"
)
if !woke.byThread.isEmpty { print("    by thread: \(woke.byThread.joined(separator: ", "))") }
print("  baseline /bin/sleep: \(baseTicksAfter - baseTicksBefore) ticks, \(wakeUpsBetween(baseWakeUpsBefore, baseWakeUpsAfter).total) wake-ups")

if let capture = options.capture {
    let name = URL(fileURLWithPath: capture).lastPathComponent
    try FileManager.default.copyItem(atPath: capture, toPath: folder.appendingPathComponent("spool").appendingPathComponent(name).path)
    waitForLog("spool file imported")
    let busy = Footprint(pid: pid, program: URL(fileURLWithPath: options.program).resolvingSymlinksInPath().path)
    Thread.sleep(forTimeInterval: options.settle)
    let after = Footprint(pid: pid, program: URL(fileURLWithPath: options.program).resolvingSymlinksInPath().path)
    print("\nafter importing \(name) from the spool:")
    row("daemon, right after the import", busy.total)
    row("daemon, idle again \(Int(options.settle)) s later", after.total)
    row("  program file pages", after.programFile)
    row("  heap, malloc arenas, thread stacks", after.anonymous)
}
