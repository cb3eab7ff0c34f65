import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

/// Illness and stress episodes: start, stop, one open episode per kind.
final class EpisodeTests: XCTestCase {
    func testStartAndStopAnEpisode() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "America/Los_Angeles")
        XCTAssertNil(try store.openEpisode(.illness))
        let started = try store.startEpisode(.illness, at: utc("2013-09-13T16:00:00Z"))
        XCTAssertTrue(started.isOpen)
        XCTAssertEqual(try store.openEpisode(.illness), started)
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT start_time || ' ' || ifnull(end_time, 'open') FROM illness;"),
            "2013-09-13 16:00:00.000 open")
        // Two days later, in the store's zone: the episode stays on the Day it started on.
        let stopped = try store.stopEpisode(.illness, at: utc("2013-09-15T18:30:00Z"))
        XCTAssertEqual(stopped.id, started.id)
        XCTAssertEqual(stopped.day.description, "2013-09-13")
        XCTAssertEqual(stopped.end, utc("2013-09-15T18:30:00Z"))
        XCTAssertEqual(stopped.duration, 2 * 86_400 + 2.5 * 3600)
        XCTAssertNil(try store.openEpisode(.illness))
        XCTAssertEqual(try store.logs(IllnessEpisode.self, of: DayDate("2013-09-13")!), [stopped])
        // A new one may start once the last has ended.
        let next = try store.startEpisode(.illness, at: utc("2013-09-20T08:00:00Z"))
        XCTAssertEqual(next.day.description, "2013-09-20")
    }

    func testOneOpenEpisodePerKind() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "America/New_York")
        let zone = TimeZone(identifier: "America/New_York")!
        let since = utc("2013-09-13T16:00:00Z")
        let illness = try store.startEpisode(.illness, at: since)
        XCTAssertStoreError(.episodeAlreadyOpen(kind: .illness, since: since, zone: zone)) {
            try store.startEpisode(.illness, at: utc("2013-09-14T08:00:00Z"))
        }
        XCTAssertStoreError(.episodeAlreadyOpen(kind: .illness, since: since, zone: zone)) {
            try store.add(IllnessEpisode(start: utc("2013-09-01T08:00:00Z")))
        }
        // Each kind has its own open episode.
        let stress = try store.startEpisode(.stress, at: utc("2013-09-13T17:00:00Z"))
        XCTAssertEqual(try store.openEpisode(.stress), stress)
        // A closed episode may be added while one is open; re-opening it may not.
        let past = try store.add(IllnessEpisode(start: utc("2013-09-01T08:00:00Z"), end: utc("2013-09-02T08:00:00Z")))
        XCTAssertStoreError(.episodeAlreadyOpen(kind: .illness, since: since, zone: zone)) {
            try store.update(past.id, with: IllnessEpisode(start: utc("2013-09-01T08:00:00Z")))
        }
        // Editing the open episode itself is fine.
        let moved = try store.update(illness.id, with: IllnessEpisode(start: utc("2013-09-13T15:00:00Z")))
        XCTAssertTrue(moved.isOpen)
        // The instant in the message is in the store's zone, like every other output.
        XCTAssertEqual(
            StoreError.episodeAlreadyOpen(kind: .illness, since: since, zone: zone).description,
            "an illness episode is already open (since 2013-09-13 12:00 (America/New_York)); stop it before starting another")
    }

    func testTheSchemaAllowsOneOpenEpisodePerKindToEveryWriter() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        try store.startEpisode(.stress, at: utc("2013-09-13T16:00:00Z"))
        XCTAssertThrowsError(
            try sqlite3(
                file.path,
                """
                INSERT INTO stress (day_id, start_time) VALUES (1, '2013-09-13 18:00:00.000');
                """)
        ) { error in
            XCTAssertTrue((error as? SQLite3Failure)?.message.contains("UNIQUE constraint failed") == true, "\(error)")
        }
        try sqlite3(
            file.path,
            """
            INSERT INTO stress (day_id, start_time, end_time) VALUES (1, '2013-09-13 10:00:00.000', '2013-09-13 11:00:00.000');
            INSERT INTO illness (day_id, start_time) VALUES (1, '2013-09-13 18:00:00.000');
            """)
        XCTAssertEqual(try count("stress", in: file.path), 2)
    }

    func testStoppingWithoutAnOpenEpisodeOrBeforeItsStartFails() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        XCTAssertStoreError(.noOpenEpisode(kind: .stress)) { try store.stopEpisode(.stress, at: utc("2013-09-13T16:00:00Z")) }
        let start = utc("2013-09-13T16:00:00Z")
        try store.startEpisode(.stress, at: start)
        let before = try dump(file.path)
        let early = utc("2013-09-13T15:59:59Z")
        XCTAssertStoreError(.invalidLog(kind: .stress, reason: "it ends at 2013-09-13 15:59:59, before it starts at 2013-09-13 16:00 (GMT)")) {
            try store.stopEpisode(.stress, at: early)
        }
        XCTAssertEqual(try dump(file.path), before)
        // Ending at the instant it started is a zero-length episode.
        XCTAssertEqual(try store.stopEpisode(.stress, at: start).duration, 0)
        XCTAssertStoreError(.noOpenEpisode(kind: .stress)) { try store.stopEpisode(.stress, at: start) }
    }
}
