import Foundation
import GRDB
import ImportTestSupport
import TestSupport
import XCTest

@testable import Store

/// A new store is written from ``NewStoreImage`` instead of running its schema's SQL. These tests
/// hold a store made that way to one made by the SQL (the path a zero-byte file still takes), and
/// `GLUCOBRIDGE_RECORD_SNAPSHOTS=1 swift test --filter NewStoreImageTests` writes the image anew
/// from the SQL (`Sources/Store/Schema/NewStoreImageBytes.swift`) after a migration is added.
final class NewStoreImageTests: XCTestCase {
    private static let recording = ProcessInfo.processInfo.environment["GLUCOBRIDGE_RECORD_SNAPSHOTS"] == "1"

    override func setUpWithError() throws {
        let file = try ImportTestSupport.StoreFile()
        try withExtendedLifetime(file) {
            try XCTSkipUnless(
                NewStoreImage.makesUnnamedFiles(in: file.folder.path),
                "the file system of \(file.folder.path) makes no unnamed files (O_TMPFILE): stores there are made by their SQL")
        }
    }

    /// A store made by the SQL of its schema: a zero-byte file is not absent, so it gets no image.
    private func storeMadeBySQL() throws -> ImportTestSupport.StoreFile {
        let file = try ImportTestSupport.StoreFile()
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: Data()))
        _ = try file.open()
        return file
    }

    /// What a new store holds, the sync uid aside: every schema object with its SQL, every
    /// table's columns, the applied migrations, the header values and every table's row count.
    private func contents(_ path: String) throws -> [String] {
        var contents = [
            try sqlite3(path, "SELECT type || ' ' || name || ' ' || tbl_name || ': ' || ifnull(sql, '') FROM sqlite_master ORDER BY type, name;"),
            try sqlite3(
                path,
                """
                SELECT m.name || '.' || c.name || ' ' || c.type || ' ' || c."notnull" || ' ' || ifnull(c.dflt_value, '-') || ' ' || c.pk
                FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' ORDER BY m.name, c.cid;
                """),
            try sqlite3(path, "SELECT identifier FROM grdb_migrations ORDER BY rowid;"),
            try sqlite3(path, "SELECT * FROM sqlite_sequence;"),
            try sqlite3(path, "SELECT id, time_zone, very_low_mgdl, low_mgdl, high_mgdl, very_high_mgdl FROM store_config;"),
        ]
        for pragma in ["application_id", "user_version", "page_size", "encoding", "auto_vacuum", "journal_mode", "integrity_check"] {
            contents.append(pragma + " " + (try sqlite3(path, "PRAGMA \(pragma);")))
        }
        let tables = try sqlite3(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name;").split(separator: "\n")
        contents.append(try sqlite3(path, tables.map { "SELECT '\($0)', COUNT(*) FROM \"\($0)\";" }.joined(separator: " ")))
        return contents
    }

    func testANewStoreFromTheImageIsTheStoreTheSchemasSQLMakes() throws {
        let bySQL = try storeMadeBySQL()
        if Self.recording { try record(from: bySQL) }
        let fromImage = try ImportTestSupport.StoreFile()
        _ = try fromImage.open()
        let image = try XCTUnwrap(
            NewStoreImage.decode(NewStoreImage.encoded), "Sources/Store/Schema/NewStoreImageBytes.swift is not an encoded image")
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: fromImage.path)).prefix(16), Data(image.prefix(16)),
            "the store was not written from the image")
        let expected = try contents(bySQL.path)
        for (made, sql) in zip(try contents(fromImage.path), expected) {
            XCTAssertEqual(
                made, sql, "the image is out of date: record it with GLUCOBRIDGE_RECORD_SNAPSHOTS=1 swift test --filter NewStoreImageTests")
        }
        XCTAssertTrue(expected.contains("integrity_check ok"), "\(expected)")
        XCTAssertTrue(expected.contains("application_id \(Int32(bitPattern: SharedStore.applicationID))"), "\(expected)")
    }

    /// Each store has its own sync uid, a version 4 UUID, though the image holds a placeholder.
    func testEveryStoreFromTheImageHasItsOwnSyncUID() throws {
        let uid = "SELECT id, length(uid), substr(uid, 15, 1), uid = lower(uid) FROM sync_store;"
        var uids: Set<String> = []
        for _ in 0..<3 {
            let file = try ImportTestSupport.StoreFile()
            _ = try file.open()
            XCTAssertEqual(try sqlite3(file.path, uid), "1|36|4|1")
            uids.insert(try sqlite3(file.path, "SELECT uid FROM sync_store;"))
        }
        XCTAssertEqual(uids.count, 3)
    }

    /// A store whose image was written but which was never given its settings (the process
    /// died in between) gets its own uid when it is next opened, not the image's.
    func testAnImageLeftUnfinishedGetsItsOwnUIDWhenOpened() throws {
        let file = try ImportTestSupport.StoreFile()
        XCTAssertTrue(NewStoreImage.create(at: file.path))
        XCTAssertEqual(try sqlite3(file.path, "SELECT uid FROM sync_store;"), NewStoreImage.placeholderUID)
        XCTAssertEqual(try sqlite3(file.path, "SELECT count(*) FROM store_config;"), "0")
        _ = try file.open()
        let uid = try sqlite3(file.path, "SELECT uid FROM sync_store;")
        XCTAssertNotEqual(uid, NewStoreImage.placeholderUID)
        XCTAssertEqual(try sqlite3(file.path, "SELECT length(uid), substr(uid, 15, 1) FROM sync_store;"), "36|4")
        XCTAssertEqual(try sqlite3(file.path, "SELECT time_zone FROM store_config;"), "America/Los_Angeles")
    }

    /// The image goes only where nothing is: a file that is at the path is left as it is, and
    /// the folder holds nothing else afterwards (the image is written unnamed, then linked).
    func testTheImageIsWrittenOnlyWhereNothingIsAndLeavesNoOtherFile() throws {
        let file = try ImportTestSupport.StoreFile()
        let other = Data("another program's file".utf8)
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: other))
        XCTAssertFalse(NewStoreImage.create(at: file.path))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file.path)), other)
        try FileManager.default.removeItem(atPath: file.path)
        XCTAssertTrue(NewStoreImage.create(at: file.path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file.folder.path), ["store.sqlite"])
        XCTAssertEqual(try sqlite3(file.path, "PRAGMA integrity_check;"), "ok")
    }

    /// A new store's mode is 0666 less the umask, as a new file's: under the units' `UMask=0007`
    /// in their setgid state folder, the group (the app's users) may write it, and SQLite gives
    /// its WAL and shared-memory files the store's mode.
    func testANewStoreTakesTheUmaskAsAnyNewFile() throws {
        let file = try ImportTestSupport.StoreFile()
        let previous = umask(0o007)
        let made = NewStoreImage.create(at: file.path)
        umask(previous)
        XCTAssertTrue(made)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int)
        XCTAssertEqual(String(mode, radix: 8), "660")
    }

    /// The encoding gives back every byte: runs of zeros of any length, none, and text with
    /// short gaps of zeros; a damaged text is refused.
    func testTheEncodingGivesBackTheBytes() {
        var random = SplitMix(seed: 65)
        var samples: [[UInt8]] = [[], [0], [1], [0, 0, 0, 0, 0, 0, 0, 0, 0, 1], [1, 0, 2, 0, 0, 3], Array(repeating: 0, count: 5000) + [7]]
        for _ in 0..<50 {
            samples.append(
                (0..<Int.random(in: 0...3000, using: &random)).map { _ in
                    Int.random(in: 0...2, using: &random) == 0 ? UInt8.random(in: 1...255, using: &random) : 0
                })
        }
        for bytes in samples {
            XCTAssertEqual(NewStoreImage.decode(NewStoreImage.encode(bytes)), bytes)
        }
        XCTAssertNil(NewStoreImage.decode("not base64 at all!"))
        XCTAssertNil(NewStoreImage.decode(Data([0, 200]).base64EncodedString()), "a run longer than the text")
    }

    /// Writes `NewStoreImageBytes.swift` from a store made by the SQL, its settings row left out
    /// (each store gets its own zone) and its WAL checkpointed into the file.
    private func record(from store: ImportTestSupport.StoreFile) throws {
        let copy = try ImportTestSupport.StoreFile()
        let queue = try DatabaseQueue(path: store.path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "DELETE FROM store_config")
            try db.execute(sql: "UPDATE sync_store SET uid = ?", arguments: [NewStoreImage.placeholderUID])
            try db.execute(sql: "VACUUM INTO ?", arguments: [copy.path])
        }
        try queue.close()
        let copied = try DatabaseQueue(path: copy.path)
        try copied.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try copied.close()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: copy.path)))
        var lines: [Substring] = []
        var rest = Substring(NewStoreImage.encode(bytes))
        while !rest.isEmpty {
            lines.append(rest.prefix(100))
            rest = rest.dropFirst(100)
        }
        let source = """
            // Generated by `GLUCOBRIDGE_RECORD_SNAPSHOTS=1 swift test --filter NewStoreImageTests`: do not edit.

            extension NewStoreImage {
                /// A new store's file (see ``NewStoreImage``), \(bytes.count) bytes, encoded by ``NewStoreImage/encode(_:)``.
                static let encoded = \"\"\"
            \(lines.map { "        " + $0 }.joined(separator: "\n"))
                    \"\"\"
            }

            """
        let target = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../Sources/Store/Schema/NewStoreImageBytes.swift")
        try source.write(to: target.standardizedFileURL, atomically: true, encoding: .utf8)
        XCTFail("recorded \(target.standardizedFileURL.path): build and test again")
    }
}
