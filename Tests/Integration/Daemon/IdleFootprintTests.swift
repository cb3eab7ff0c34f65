import Foundation
import Synchronization
import XCTest

@testable import Daemon

/// What keeps the idle daemon small: its start-up code unmapped and, on request, its program
/// pages handed back once it is quiet, and log lines that need no ICU calendar.
final class IdleFootprintTests: XCTestCase {
    func testMappingsOfOneFileAreFoundInAMapsFile() {
        let maps = """
            55d179fc5000-55d17ca4e000 r-xp 00000000 fe:00 16221226                   /usr/local/bin/glucobridge
            55d17ca4f000-55d17cb70000 r--p 02a89000 fe:00 16221226                   /usr/local/bin/glucobridge
            55d17cb70000-55d17f0dd000 rw-p 02baa000 fe:00 16221226                   /usr/local/bin/glucobridge
            55d17f0dd000-55d17f218000 rw-p 00000000 00:00 0
            7f3d6c244000-7f3d6c39a000 r-xp 00026000 fe:00 333151                     /usr/lib/x86_64-linux-gnu/libc.so.6
            7f3d6c400000-7f3d6c499000 r--p 00000000 fe:00 333671                     /opt/my tools/glucobridge
            7ffe610fb000-7ffe6111c000 rw-p 00000000 00:00 0                          [stack]
            """
        let program = ProgramPages.mappings(of: "/usr/local/bin/glucobridge", inMaps: maps)
        XCTAssertEqual(program.map(\.start), [0x55d1_79fc_5000, 0x55d1_7ca4_f000, 0x55d1_7cb7_0000])
        XCTAssertEqual(program.map(\.end), [0x55d1_7ca4_e000, 0x55d1_7cb7_0000, 0x55d1_7f0d_d000])
        XCTAssertEqual(ProgramPages.mappings(of: "/opt/my tools/glucobridge", inMaps: maps).map(\.start), [0x7f3d_6c40_0000])
        XCTAssertEqual(ProgramPages.mappings(of: "/usr/bin/glucobridge", inMaps: maps), [])
    }

    func testReleasingTheProgramPagesKeepsWhatTheProgramWrote() throws {
        let executable = try XCTUnwrap(ProgramPages.executablePath)
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        XCTAssertFalse(ProgramPages.mappings(of: executable, inMaps: maps).isEmpty, "this test's program is mapped from \(executable)")

        let release = try XCTUnwrap(ProgramPages.release())
        XCTAssertGreaterThan(release.filePages, 0, "code that ran is resident, as the file's pages")
        XCTAssertGreaterThan(release.writtenPages, 0, "relocated pointers and data are the program's own copies, kept")
        // The code, read back from the file where it was reclaimed, still runs, and the data the
        // program wrote is still there.
        XCTAssertEqual(LineLogHandler.utcTimestamp(Date(timeIntervalSince1970: 1_763_805_600)), "2025-11-22T10:00:00Z")
        XCTAssertEqual(ProgramPages.executablePath, executable)
    }

    /// `releaseStartUpCode()`'s advice: the file's pages leave this process, what it wrote stays.
    func testUnmappingTheProgramFilePagesKeepsWhatTheProgramWroteAndTheCodeRuns() throws {
        let executable = try XCTUnwrap(ProgramPages.executablePath)
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        let program = ProgramPages.mappings(of: executable, inMaps: maps)

        let unmapped = try XCTUnwrap(ProgramPages.advise(program, MADV_DONTNEED))
        XCTAssertGreaterThan(unmapped.filePages, 0, "code that ran was mapped, as the file's pages")
        XCTAssertGreaterThan(unmapped.writtenPages, 0, "relocated pointers and data are the program's own copies, kept")
        // The code maps its pages back from the page cache as it runs, the data is as written,
        // and only the few pages run since are mapped again.
        XCTAssertEqual(LineLogHandler.utcTimestamp(Date(timeIntervalSince1970: 1_763_805_600)), "2025-11-22T10:00:00Z")
        XCTAssertEqual(ProgramPages.executablePath, executable)
        let again = try XCTUnwrap(ProgramPages.advise(program, MADV_DONTNEED))
        XCTAssertLessThan(again.filePages, unmapped.filePages)
        XCTAssertGreaterThanOrEqual(again.writtenPages, unmapped.writtenPages, "nothing the program wrote was dropped")
    }

    func testLogTimestampsAreWhatISO8601DateFormatterWrites() {
        let formatter = ISO8601DateFormatter()
        for seconds in [0, 946_684_799, 951_782_400, 1_763_805_600.999, 1_764_028_799.5, 4_102_444_800, -0.5, -86_400.25] {
            let date = Date(timeIntervalSince1970: seconds)
            XCTAssertEqual(LineLogHandler.utcTimestamp(date), formatter.string(from: date), "\(seconds)")
        }
    }

    func testTheIdleWorkRunsOnceTheQueueIsQuietAndNeverBesideAJob() async {
        let running = Mutex(false)
        let (ran, ranContinuation) = AsyncStream.makeStream(of: Bool.self)
        let queue = ImportQueue(whenIdle: (after: .zero, body: { ranContinuation.yield(running.withLock { $0 }) }))
        let result = await queue.run { () -> Int in
            running.withLock { $0 = true }
            defer { running.withLock { $0 = false } }
            return 42
        }
        XCTAssertEqual(result, 42)
        var iterator = ran.makeAsyncIterator()
        let duringJob = await iterator.next()
        XCTAssertEqual(duringJob, false, "the idle work ran after the job, not beside it")

        queue.settle()
        let afterSettle = await iterator.next()
        XCTAssertEqual(afterSettle, false, "settle() starts a quiet period of its own")
    }

    func testSerialTimerSleepsAndStopsAtOnceWhenCancelled() async throws {
        try await SerialTimer.sleep(for: .milliseconds(1))
        let long = Task { try await SerialTimer.sleep(for: .seconds(3600)) }
        long.cancel()
        do {
            try await long.value
            XCTFail("a cancelled sleep returned normally")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await SerialTimer.sleep(for: .seconds(3600))
        }
        await XCTAssertThrowsErrorAsync(try await cancelledFirst.value)
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    private func XCTAssertThrowsErrorAsync(_ body: @autoclosure () async throws -> Void, line: UInt = #line) async {
        do {
            try await body()
            XCTFail("no error", line: line)
        } catch {}
    }
}
