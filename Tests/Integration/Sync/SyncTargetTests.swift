import Foundation
import ImportTestSupport
import Sync
import TestSupport
import XCTest

/// The `--to` address and the password rules (no server needed).
final class SyncTargetTests: XCTestCase {
    func testTheAddressIsReadAsLibpqDoesAndAPasswordInItIsRefused() throws {
        let target = try SyncTarget(url: "postgresql://study@db.example.org:6543/arises?sslmode=require", environment: [:])
        XCTAssertEqual(target.user, "study")
        XCTAssertEqual(target.host, "db.example.org")
        XCTAssertEqual(target.port, 6543)
        XCTAssertEqual(target.database, "arises")
        XCTAssertEqual(target.tlsMode, .require)
        let defaults = try SyncTarget(url: "postgres://study@db/arises", environment: ["PGSSLMODE": "disable"])
        XCTAssertEqual(defaults.port, 5432)
        XCTAssertEqual(defaults.tlsMode, .disable)
        XCTAssertEqual(try SyncTarget(url: "postgres://study@db/arises", environment: [:]).tlsMode, .prefer)

        XCTAssertThrowsError(try SyncTarget(url: "postgresql://study:secret@db/arises")) { error in
            XCTAssertEqual(error as? SyncError, .passwordInURL)
            XCTAssertTrue("\(error)".contains("PGPASSWORD, ~/.pgpass or --password-file"))
        }
        XCTAssertThrowsError(try SyncTarget(url: "postgresql://study@db/arises?password=secret")) { error in
            XCTAssertEqual(error as? SyncError, .passwordInURL)
        }
        XCTAssertThrowsError(try SyncTarget(url: "postgresql://study@db/arises?sslmode=sometimes")) { error in
            XCTAssertTrue("\(error)".contains("sslmode \"sometimes\" is not one of disable, prefer, require, verify-ca, verify-full"), "\(error)")
        }
        XCTAssertThrowsError(try SyncTarget(url: "https://db/arises"))
        XCTAssertThrowsError(try SyncTarget(url: "postgresql://study@db"))
        let home = try Fixtures.temporaryDirectory()
        XCTAssertThrowsError(try SyncTarget(url: "postgresql://study@db/arises?sslmode=verify-full", environment: ["HOME": home.path])) { error in
            XCTAssertTrue("\(error)".contains("needs the server's root certificate"), "\(error)")
        }
    }

    func testThePasswordComesFromTheFileThenPGPASSWORDThenPgpassWhenOnlyItsOwnerMayReadIt() throws {
        let folder = try Fixtures.temporaryDirectory()
        let target = try SyncTarget(url: "postgresql://study@db.example.org:6543/arises", environment: [:])
        let pgpass = folder.appendingPathComponent("pgpass")
        try Data(
            """
            # comment
            other.example.org:*:*:study:not-this
            db.example.org:6543:arises:someone:nor-this
            db.example.org:6543:*:study:pa\\:ss\\\\word
            *:*:*:*:fallback

            """.utf8
        ).write(to: pgpass)
        chmod(pgpass.path, 0o600)

        var lookup = PasswordLookup(environment: ["PGPASSFILE": pgpass.path])
        XCTAssertEqual(try lookup.password(for: target), "pa:ss\\word")
        lookup = PasswordLookup(environment: ["PGPASSFILE": pgpass.path, "PGPASSWORD": "from-env"])
        XCTAssertEqual(try lookup.password(for: target), "from-env")
        let file = folder.appendingPathComponent("password")
        try Data("from-file\nignored\n".utf8).write(to: file)
        lookup = PasswordLookup(passwordFile: file.path, environment: ["PGPASSWORD": "from-env"])
        XCTAssertEqual(try lookup.password(for: target), "from-file")

        // Readable by others: ignored, with a warning, as libpq does.
        chmod(pgpass.path, 0o644)
        lookup = PasswordLookup(environment: ["PGPASSFILE": pgpass.path])
        XCTAssertNil(try lookup.password(for: target))
        XCTAssertEqual(lookup.warnings, ["the password file \(pgpass.path) is ignored because others may read it; run chmod 0600 \(pgpass.path)"])

        lookup = PasswordLookup(passwordFile: folder.appendingPathComponent("missing").path, environment: [:])
        XCTAssertThrowsError(try lookup.password(for: target)) { error in
            XCTAssertTrue("\(error)".hasPrefix("cannot read the password file "), "\(error)")
        }
    }
}
