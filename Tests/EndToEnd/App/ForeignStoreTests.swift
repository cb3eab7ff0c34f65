import Foundation
import GRDB
import ImportTestSupport
import Store
import TestSupport
import XCTest

/// The store is only ever glucobridge's: other programs' SQLite files given as `--store` are
/// refused and left byte for byte as they were, views create nothing, and SQLite's own words
/// never reach the user alone. Runs the built `glucobridge` program on real files.
final class ForeignStoreTests: XCTestCase {
    let program = BuiltProducts.executable("glucobridge")
    let capture = Fixtures.url("dexcom/ecc1-g4-receiver.pcap").path

    /// A database another program made with the `sqlite3` program.
    func foreignDatabase(_ sql: String) throws -> URL {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("other-app.db")
        try sqlite3(file.path, sql)
        return file
    }

    /// The files in the folder of `file`, to show nothing was added beside it (no -wal, -shm).
    func neighbours(_ file: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path).sorted()
    }

    func run(_ arguments: [String]) throws -> ProcessResult {
        try runProcess(program, arguments, environment: ["HOME": NSTemporaryDirectory(), "TZ": "UTC"])
    }

    /// `replay`, `export` and `days` on another program's database: refused, naming the file and
    /// what it holds, and the file is unchanged (same bytes, same SHA-256, nothing beside it).
    func testAnotherProgramsDatabaseIsLeftUntouched() throws {
        let cases = [
            ("CREATE TABLE foo (a INTEGER, b TEXT); INSERT INTO foo VALUES (1, 'x');", "the table foo"),
            ("CREATE TABLE glucose (id INTEGER PRIMARY KEY, value REAL); INSERT INTO glucose VALUES (1, 5.5);", "the table glucose"),
            ("PRAGMA journal_mode = WAL; CREATE TABLE notes (t TEXT); CREATE TABLE tags (t TEXT);", "2 tables (notes, tags)"),
            ("PRAGMA application_id = 1234; CREATE TABLE things (t TEXT);", "application_id 0x4D2"),
            ("PRAGMA user_version = 7; CREATE TABLE t (x); DROP TABLE t;", "no table yet, marked by another program (user_version 7)"),
        ]
        for (sql, holds) in cases {
            let file = try foreignDatabase(sql)
            let before = try Data(contentsOf: file)
            let hashBefore = try sha256(file)
            let beside = try neighbours(file)
            for arguments in [["replay", capture], ["export"], ["days"], ["day", "2015-07-17"], ["status"]] {
                let result = try run(arguments + ["--store", file.path])
                let command = arguments[0]
                XCTAssertEqual(result.status, 1, "\(command): \(result.stdout)")
                XCTAssertTrue(result.stderr.contains("\(file.path) is not a glucobridge store"), "\(command): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains(holds), "\(command): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("left it untouched"), "\(command): \(result.stderr)")
                XCTAssertEqual(try Data(contentsOf: file), before, "\(command) changed \(sql)")
                XCTAssertEqual(try sha256(file), hashBefore, command)
                XCTAssertEqual(try neighbours(file), beside, "\(command) added files beside \(sql)")
            }
            XCTAssertFalse(try sqlite3(file.path, "SELECT name FROM sqlite_master").contains("grdb_migrations"))
        }
    }

    /// Files that are not SQLite at all, and a device.
    func testFilesThatAreNotDatabasesAreRefused() throws {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("notes.txt")
        try Data("shopping: milk, bread\n".utf8).write(to: file)
        let before = try Data(contentsOf: file)
        let result = try run(["replay", capture, "--store", file.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(
            result.stderr.contains("\(file.path) is not a glucobridge store: it holds 22 bytes that are not an SQLite database"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: file), before)

        let null = try run(["replay", capture, "--store", "/dev/null"])
        XCTAssertEqual(null.status, 1)
        XCTAssertTrue(null.stderr.contains("/dev/null is not a glucobridge store: it holds a device, not a regular file"), null.stderr)
        XCTAssertFalse(null.stderr.contains("SQLite error"), null.stderr)
    }

    /// Views on a path with nothing there: "no store at PATH", pointing to --store; no file and no
    /// folder made.
    func testViewsOnAMissingStoreCreateNothing() throws {
        let folder = try Fixtures.temporaryDirectory()
        let typo = folder.appendingPathComponent("sub/typo.sqlite")
        for arguments in [["export"], ["days"], ["day", "2015-07-17"]] {
            let result = try run(arguments + ["--store", typo.path])
            XCTAssertEqual(result.status, 1, arguments[0])
            XCTAssertTrue(result.stderr.contains("no store at \(typo.path)"), "\(arguments[0]): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("--store"), result.stderr)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], arguments[0])
        }
        let status = try run(["status", "--store", typo.path])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])

        // Without --store, the message names the default store and how to give another.
        let home = try Fixtures.temporaryDirectory()
        let fallback = try runProcess(program, ["days"], environment: ["HOME": home.path, "XDG_DATA_HOME": home.path + "/data"])
        XCTAssertEqual(fallback.status, 1)
        XCTAssertTrue(fallback.stderr.contains("no store at \(home.path)/data/glucobridge/store.sqlite"), fallback.stderr)
        XCTAssertTrue(fallback.stderr.contains("--store PATH"), fallback.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: home.path + "/data"))
    }

    /// A store made before the application id (id 0) is accepted and stamped; then views read it.
    func testAnOlderStoreIsRecognisedAndStamped() throws {
        let folder = try Fixtures.temporaryDirectory()
        let path = folder.appendingPathComponent("store.sqlite").path
        XCTAssertEqual(try run(["replay", capture, "--store", path]).status, 0)
        XCTAssertEqual(try sqlite3(path, "PRAGMA application_id;"), "\(Int32(bitPattern: SharedStore.applicationID))")
        try sqlite3(path, "PRAGMA application_id = 0;")
        XCTAssertEqual(try sqlite3(path, "PRAGMA application_id;"), "0")

        let days = try run(["days", "--store", path])
        XCTAssertEqual(days.status, 0, days.stderr)
        let again = try run(["replay", capture, "--store", path])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try sqlite3(path, "PRAGMA application_id;"), "1198277234")
        XCTAssertEqual(try sqlite3(path, "SELECT COUNT(*) FROM glucose;"), "23")
    }

    /// A store whose record of migrations was edited: a sentence, not SQLite's words alone, and
    /// the store keeps its readings.
    func testAStoreWithADeletedMigrationIsExplained() throws {
        let folder = try Fixtures.temporaryDirectory()
        let path = folder.appendingPathComponent("store.sqlite").path
        XCTAssertEqual(try run(["replay", capture, "--store", path]).status, 0)

        let newest = try sqlite3(path, "SELECT identifier FROM grdb_migrations ORDER BY rowid DESC LIMIT 1;")
        try sqlite3(path, "DELETE FROM grdb_migrations WHERE identifier = '\(newest)';")
        let last = try run(["replay", capture, "--store", path])
        XCTAssertEqual(last.status, 1)
        XCTAssertTrue(last.stderr.contains("could not be brought up to date: migration \(newest) failed"), last.stderr)
        XCTAssertTrue(last.stderr.contains("restore it from a backup"), last.stderr)
        XCTAssertEqual(try sqlite3(path, "SELECT COUNT(*) FROM glucose;"), "23")

        try sqlite3(path, "DELETE FROM grdb_migrations WHERE identifier = 'v2-app-api-indexes';")
        let middle = try run(["export", "--store", path])
        XCTAssertEqual(middle.status, 1)
        XCTAssertTrue(middle.stderr.contains("damaged record of its schema: migrations v2-app-api-indexes"), middle.stderr)
    }

    /// Raw SQLite failures carry a sentence: a store another program holds locked for writing
    /// refuses a write with what to do, while a command that only reads still reads (WAL mode).
    func testALockedStoreSaysWhatToDo() throws {
        let folder = try Fixtures.temporaryDirectory()
        let path = folder.appendingPathComponent("store.sqlite").path
        XCTAssertEqual(try run(["replay", capture, "--store", path]).status, 0)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        holder.arguments = ["-batch", path]
        let input = Pipe()
        let output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        // sqlite3 says when it holds the lock: the test goes on then, however slow the machine.
        input.fileHandleForWriting.write(Data("BEGIN EXCLUSIVE; DELETE FROM day WHERE 0; SELECT 'holding';\n".utf8))
        var seen = ""
        while !seen.contains("holding") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { return XCTFail("sqlite3 ended before taking the lock") }
            seen += String(decoding: data, as: UTF8.self)
        }
        let result = try runProcess(
            program, ["log", "glucose", "--value", "120", "--store", path], environment: ["HOME": NSTemporaryDirectory()])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("is locked by another program"), result.stderr)
        XCTAssertTrue(result.stderr.contains("try again"), result.stderr)
        let days = try runProcess(program, ["days", "--store", path], environment: ["HOME": NSTemporaryDirectory()])
        XCTAssertEqual(days.status, 0, days.stderr)
        XCTAssertTrue(days.stdout.contains("2015-"), days.stdout)
    }

    func sha256(_ file: URL) throws -> String {
        try runProcess(URL(fileURLWithPath: "/usr/bin/sha256sum"), [file.path]).stdout.split(separator: " ").first.map(String.init) ?? ""
    }
}
