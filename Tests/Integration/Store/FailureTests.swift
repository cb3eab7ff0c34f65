import Foundation
import GRDB
import ImportTestSupport
import Model
import TestSupport
import XCTest

@testable import Store

#if canImport(Glibc)
    import Glibc
#endif

final class FailureTests: XCTestCase {

    /// Root ignores permission bits, so as root the test takes the effective user id of `nobody`
    /// while it opens the store (glibc applies `seteuid` to every thread of the process).
    func testAReadOnlyFileIsReported() throws {
        let file = try StoreFile()
        do {
            let store = try file.open()
            _ = try store.save(batch(readings(count: 3, from: utc("2013-09-13T12:00:00Z"))))
        }
        let before = try dump(file.path)
        XCTAssertEqual(chmod(file.folder.path, 0o777), 0)
        XCTAssertEqual(chmod(file.path, 0o444), 0)
        if geteuid() == 0 {
            XCTAssertEqual(seteuid(65534), 0, "cannot take the nobody user id")
        }
        defer { if getuid() == 0 { _ = seteuid(0) } }
        XCTAssertStoreError(.readOnly(path: file.path)) { try file.open() }
        if getuid() == 0 { XCTAssertEqual(seteuid(0), 0) }
        XCTAssertEqual(try dump(file.path), before)
        XCTAssertTrue(StoreError.readOnly(path: file.path).description.contains("is read-only"))
    }

    func testAFolderThatIsNotWritableIsReported() throws {
        let file = try StoreFile()
        XCTAssertEqual(chmod(file.folder.path, 0o555), 0)
        defer { chmod(file.folder.path, 0o755) }
        if geteuid() == 0 { XCTAssertEqual(seteuid(65534), 0) }
        defer { if getuid() == 0 { _ = seteuid(0) } }
        XCTAssertStoreError(.readOnly(path: file.path)) { try file.open() }
    }

    func testRandomBytesAreReportedAsNotAStore() throws {
        let file = try StoreFile()
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16_384).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: URL(fileURLWithPath: file.path))
        do {
            _ = try file.open()
            XCTFail("random bytes opened as a store")
        } catch let error as StoreError {
            XCTAssertEqual(error, .notAStore(path: file.path, holds: "16384 bytes that are not an SQLite database"))
            XCTAssertTrue(error.description.hasPrefix("\(file.path) is not a glucobridge store"))
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file.path)), Data(bytes))
    }

    /// A store whose making was cut short after the migrator made its own table, and before the
    /// first migration committed (what a kill then leaves), is finished by the next open rather
    /// than refused as another program's database. Stamped first, a store being made is known
    /// as glucobridge's from its first commit on.
    func testAStoreInterruptedWhileBeingMadeIsFinished() throws {
        let unstamped = try StoreFile()
        try sqlite3(unstamped.path, "PRAGMA journal_mode = WAL; CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);")
        _ = try unstamped.open(zone: "UTC")
        XCTAssertEqual(try sqlite3(unstamped.path, "PRAGMA application_id;"), String(Int32(bitPattern: SharedStore.applicationID)))
        XCTAssertEqual(try count("grdb_migrations", in: unstamped.path), Migrations.migrator.migrations.count)

        let stamped = try StoreFile()
        try sqlite3(
            stamped.path,
            """
            PRAGMA journal_mode = WAL; PRAGMA application_id = \(Int32(bitPattern: SharedStore.applicationID));
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            """)
        _ = try stamped.open(zone: "UTC")
        XCTAssertEqual(try count("grdb_migrations", in: stamped.path), Migrations.migrator.migrations.count)

        // The same lone table with a row in it is not glucobridge's leftover: refused, untouched.
        let foreign = try StoreFile()
        try sqlite3(foreign.path, "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY); INSERT INTO grdb_migrations VALUES ('m1');")
        let before = try Data(contentsOf: URL(fileURLWithPath: foreign.path))
        XCTAssertThrowsError(try foreign.open(zone: "UTC")) { error in
            guard case .notAStore = error as? StoreError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: foreign.path)), before)
    }

    func testDamagedPagesAreReportedAsCorrupt() throws {
        let file = try StoreFile()
        do {
            let store = try file.open()
            _ = try store.save(batch(readings(count: 3000, from: utc("2013-09-13T12:00:00Z"))))
            _ = try store.database.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        }
        // Overwrite pages past the schema with garbage.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file.path))
        try handle.seek(toOffset: 8 * 4096)
        handle.write(Data(repeating: 0xA5, count: 16 * 4096))
        try handle.close()
        do {
            let store = try file.open()
            try store.checkIntegrity()
            _ = try store.glucose()
            XCTFail("damaged pages went unnoticed")
        } catch let error as StoreError {
            guard case .corrupt = error else { return XCTFail("\(error)") }
        }
    }

    func testAMissingFolderCannotBeOpened() {
        let folder = "/nonexistent-\(UUID().uuidString)"
        XCTAssertStoreError(.cannotOpen(path: folder + "/store.sqlite", reason: "the folder \(folder) does not exist")) {
            try SharedStore(path: folder + "/store.sqlite")
        }
    }

    func testSQLiteErrorsMapToActionableCases() {
        func mapped(_ code: ResultCode) -> StoreError {
            StoreError(DatabaseError(resultCode: code, message: "m"), path: "/x/y.sqlite", busyTimeout: 5)
        }
        XCTAssertEqual(mapped(.SQLITE_BUSY), .locked(path: "/x/y.sqlite", waitedSeconds: 5))
        XCTAssertEqual(mapped(.SQLITE_LOCKED), .locked(path: "/x/y.sqlite", waitedSeconds: 5))
        XCTAssertEqual(mapped(.SQLITE_READONLY), .readOnly(path: "/x/y.sqlite"))
        XCTAssertEqual(mapped(.SQLITE_NOTADB), .corrupt(path: "/x/y.sqlite", reason: "m"))
        XCTAssertEqual(mapped(.SQLITE_CORRUPT), .corrupt(path: "/x/y.sqlite", reason: "m"))
        XCTAssertEqual(mapped(.SQLITE_CANTOPEN), .cannotOpen(path: "/x/y.sqlite", reason: "m"))
        XCTAssertEqual(
            mapped(.SQLITE_BUSY).description,
            "the store /x/y.sqlite is locked by another program (waited 5 s); try again when it has finished writing")
        // A full disk names the store and says "no space" (the lab's full-disk scenario fills a
        // real file system); an I/O error on a disk with space left stays an I/O failure.
        XCTAssertEqual(mapped(.SQLITE_FULL), .noSpace(path: "/x/y.sqlite", reason: "m"))
        XCTAssertTrue(mapped(.SQLITE_FULL).description.hasPrefix("the store /x/y.sqlite: no space left on its file system"))
        let folder = NSTemporaryDirectory()
        XCTAssertEqual(
            StoreError(DatabaseError(resultCode: .SQLITE_IOERR, message: "m"), path: folder + "/y.sqlite", busyTimeout: 5),
            .ioFailure(path: folder + "/y.sqlite", reason: "m"))
    }
}
