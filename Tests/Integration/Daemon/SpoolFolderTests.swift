import Foundation
import ImportTestSupport
import Logging
import TestSupport
import XCTest

@testable import Daemon

final class SpoolFolderTests: XCTestCase {
    func testNamesWritersUseWhileWritingAreIgnored() {
        for name in ["receiver.pcap", "dump.pcapng", "session.txt", "no-extension"] {
            XCTAssertTrue(SpoolFolder.isCandidate(name: name), name)
        }
        for name in [
            ".receiver.pcap", ".receiver.pcap.abc123", "receiver.pcap.part", "receiver.PCAP.PART", "x.partial", "x.tmp",
            "x.crdownload", "x.pcap~", "",
        ] {
            XCTAssertFalse(SpoolFolder.isCandidate(name: name), name)
        }
    }

    func testFinishedFilesMoveWithTheirNotesAndNeverOverwrite() throws {
        let folder = SpoolFolder(url: try Fixtures.temporaryDirectory().appendingPathComponent("spool"))
        try folder.prepare()
        for (name, text) in [("a.pcap", "one"), ("b.pcap", "two"), ("sub", "")] {
            if name == "sub" {
                try FileManager.default.createDirectory(at: folder.url.appendingPathComponent(name), withIntermediateDirectories: false)
            } else {
                try Data(text.utf8).write(to: folder.url.appendingPathComponent(name))
            }
        }
        try Data().write(to: folder.url.appendingPathComponent("c.pcap.part"))
        XCTAssertEqual(Set(folder.entries().map(\.name)), ["a.pcap", "b.pcap"], "folders and partial files are not entries")

        let first = try folder.markFailed("a.pcap", reason: "bad header")
        XCTAssertEqual(first.lastPathComponent, "a.pcap")
        try Data("one again".utf8).write(to: folder.url.appendingPathComponent("a.pcap"))
        let second = try folder.markFailed("a.pcap", reason: "still bad")
        XCTAssertEqual(second.lastPathComponent, "a-2.pcap")
        XCTAssertEqual(try String(contentsOf: folder.failed.appendingPathComponent("a.pcap"), encoding: .utf8), "one")
        XCTAssertEqual(try String(contentsOf: folder.failed.appendingPathComponent("a.pcap.reason.txt"), encoding: .utf8), "bad header\n")
        XCTAssertEqual(try String(contentsOf: folder.failed.appendingPathComponent("a-2.pcap.reason.txt"), encoding: .utf8), "still bad\n")

        _ = try folder.markDone("b.pcap", report: "23 new\n")
        XCTAssertEqual(try String(contentsOf: folder.done.appendingPathComponent("b.pcap.report.txt"), encoding: .utf8), "23 new\n")
        XCTAssertFalse(folder.isWaiting("b.pcap"))
        XCTAssertEqual(folder.entries(), [])
    }

    func testBackOffDoublesUpToItsLimit() {
        let backOff = BackOff(base: .seconds(30), limit: .seconds(300))
        XCTAssertEqual(
            (1...6).map { backOff.delay(afterFailures: $0) },
            [.seconds(30), .seconds(60), .seconds(120), .seconds(240), .seconds(300), .seconds(300)])
        XCTAssertEqual(backOff.delay(afterFailures: 10_000), .seconds(300))
    }

    func testLogLinesAreSingleLinesWithSortedMetadata() {
        let line = LineLogHandler.format(
            level: .info, label: "glucobridge.daemon", message: "spool file failed",
            metadata: ["file": "my dump.pcap", "error": "line one\nline two", "added": "0"], timestamp: nil)
        XCTAssertEqual(line, #"glucobridge.daemon: spool file failed added=0 error="line one | line two" file="my dump.pcap""#)
        let stamped = LineLogHandler.format(
            level: .warning, label: "x", message: "m", metadata: [:], timestamp: Date(timeIntervalSince1970: 0))
        XCTAssertEqual(stamped, "1970-01-01T00:00:00Z warning x: m")
        XCTAssertEqual(LineLogHandler.priority(.error), 3)
        XCTAssertEqual(LineLogHandler.priority(.info), 6)
    }
}
