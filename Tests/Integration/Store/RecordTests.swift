import Foundation
import GRDB
import ImportTestSupport
import Model
import TestSupport
import XCTest

@testable import Store

final class RecordTests: XCTestCase {
    func testRecordingTheSameBatchTwiceAddsNothing() throws {
        let file = try StoreFile()
        let store = try file.open()
        let offered = readings(count: 228, from: utc("2013-09-13T07:00:00Z"))
        let imported = batch(offered, recordsRead: 231, cursors: ["egv": 228])

        let first = try store.save(imported)
        XCTAssertEqual(first.added, 228)
        XCTAssertEqual(first.alreadyStored, 0)
        XCTAssertEqual(first.skipped, 3)
        XCTAssertEqual(first.recordsRead, 231)
        XCTAssertEqual(first.description, "228 new, 0 already stored, 3 not readings")
        XCTAssertEqual(first.days.map(\.description), ["2013-09-13"])
        XCTAssertEqual(first.firstReading, utc("2013-09-13T07:00:00Z"))
        XCTAssertEqual(first.lastReading, utc("2013-09-13T07:00:00Z").addingTimeInterval(227 * 300))

        let second = try store.save(imported)
        XCTAssertEqual(second.added, 0)
        XCTAssertEqual(second.alreadyStored, 228)
        XCTAssertEqual(second.days, [])
        XCTAssertEqual(second.description, "0 new, 228 already stored, 3 not readings")
        XCTAssertNotEqual(second.runID, first.runID)

        XCTAssertEqual(try count("glucose", in: file.path), 228)
        XCTAssertEqual(try count("import_run", in: file.path), 2)
        XCTAssertEqual(try count("source", in: file.path), 1)
        XCTAssertEqual(try count("day", in: file.path), 1)
    }

    func testStoredRowsKeepTheirProvenance() throws {
        let file = try StoreFile()
        let store = try file.open()
        let fingerstick = GlucoseReading(
            time: utc("2013-09-13T08:00:00Z"), mgdl: 39, kind: .fingerstick, flag: .belowRange,
            trend: nil, noise: nil, recordKey: "meter:7", deviceTime: 370_001_234, displayTime: "2013-09-13T01:00:00")
        let summary = try store.save(batch([fingerstick]))
        let row = try XCTUnwrap(store.glucose().first)
        XCTAssertEqual(row.time, fingerstick.time)
        XCTAssertEqual(row.mgdl, 39)
        XCTAssertEqual(row.unit, .milligramsPerDeciliter)
        XCTAssertEqual(row.tag, .hypoLevel2)
        XCTAssertEqual(row.flag, .belowRange)
        XCTAssertEqual(row.kind, .fingerstick)
        XCTAssertNil(row.trend)
        XCTAssertNil(row.noise)
        XCTAssertEqual(row.day.description, "2013-09-13")
        XCTAssertEqual(row.sourceFamily, "dexcom")
        XCTAssertEqual(row.sourceSerial, "SM12345678")
        XCTAssertEqual(row.recordKey, "meter:7")
        XCTAssertEqual(row.deviceTime, 370_001_234)
        XCTAssertEqual(row.displayTime, "2013-09-13T01:00:00")
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT time || '|' || import_run_id || '|' || source_id FROM glucose;"),
            "2013-09-13 08:00:00.000|\(summary.runID)|1")
    }

    func testImportRunsKeepCountsAndClock() throws {
        let file = try StoreFile()
        let store = try file.open()
        let first = try store.save(batch(readings(count: 10, from: utc("2013-09-13T12:00:00Z")), recordsRead: 12))
        let second = try store.save(batch(readings(count: 15, from: utc("2013-09-13T12:00:00Z"))))
        let runs = try store.importRuns(limit: 10)
        XCTAssertEqual(runs.map(\.id), [second.runID, first.runID])
        XCTAssertEqual(runs.map(\.added), [5, 10])
        XCTAssertEqual(runs.map(\.alreadyStored), [10, 0])
        XCTAssertEqual(runs.map(\.skipped), [0, 2])
        XCTAssertEqual(runs.map(\.recordsRead), [15, 12])
        let run = runs[1]
        XCTAssertEqual(run.source, testSource)
        XCTAssertEqual(run.startedAt, utc("2013-09-20T10:00:00Z"))
        XCTAssertGreaterThanOrEqual(run.finishedAt, run.startedAt)
        XCTAssertEqual(run.mode, .replayConversation)
        XCTAssertEqual(run.origin, "fixtures/dexcom/g4.pcapng")
        XCTAssertEqual(run.clock.hostTime, utc("2013-09-20T10:00:00Z"))
        XCTAssertEqual(run.clock.deviceTime, utc("2013-09-20T09:58:30Z"))
        XCTAssertEqual(run.clock.offsetSeconds, 90)
        XCTAssertEqual(run.clock.method, .hostAnchored)
        XCTAssertEqual(run.events, [ImportEvent(name: "display-only", count: 2)])
        XCTAssertEqual(run.notes, ["host clock used as the anchor"])
        XCTAssertEqual(try store.importRuns(limit: 1).map(\.id), [second.runID])
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT events_json FROM import_run WHERE id = \(first.runID);"),
            #"[{"count":2,"name":"display-only"}]"#)
    }

    func testCursorsOnlyRise() throws {
        let file = try StoreFile()
        let store = try file.open()
        XCTAssertNil(try store.cursor(source: testSource, stream: "egv"))
        _ = try store.save(batch([], recordsRead: 0, cursors: ["egv": 500, "meter": 20]))
        XCTAssertEqual(try store.cursor(source: testSource, stream: "egv"), 500)
        XCTAssertEqual(try store.cursor(source: testSource, stream: "meter"), 20)
        _ = try store.save(batch([], recordsRead: 0, cursors: ["egv": 300, "meter": 21]))
        XCTAssertEqual(try store.cursor(source: testSource, stream: "egv"), 500)
        XCTAssertEqual(try store.cursor(source: testSource, stream: "meter"), 21)
        let other = DeviceSource(family: "dexcom", serial: "SM99999999")
        XCTAssertNil(try store.cursor(source: other, stream: "egv"))
        _ = try store.save(batch([], recordsRead: 0, cursors: ["egv": 7], source: other))
        XCTAssertEqual(try store.cursor(source: other, stream: "egv"), 7)
        XCTAssertEqual(try store.cursor(source: testSource, stream: "egv"), 500)
    }

    func testAnInvalidReadingLeavesTheStoreAsItWas() throws {
        let file = try StoreFile()
        let store = try file.open()
        _ = try store.save(batch(readings(count: 5, from: utc("2013-09-13T12:00:00Z")), cursors: ["egv": 5]))
        let before = try dump(file.path)

        var bad = readings(count: 20, from: utc("2013-09-14T12:00:00Z"), firstIndex: 6)
        bad[13].mgdl = 1000
        XCTAssertStoreError(.invalidReading(recordKey: "egv:19", reason: "1000.0 mg/dL is not within 0 < mg/dL < 1000")) {
            try store.save(batch(bad, cursors: ["egv": 25]))
        }
        bad[13].mgdl = .nan
        XCTAssertThrowsError(try store.save(batch(bad)))
        bad[13].mgdl = 0
        XCTAssertThrowsError(try store.save(batch(bad)))
        bad[13].mgdl = 120
        bad[13].note = ""
        XCTAssertStoreError(.invalidReading(recordKey: "egv:19", reason: "its note is empty (leave it out instead)")) {
            try store.save(batch(bad))
        }
        bad[13].note = nil
        bad[13].recordKey = ""
        XCTAssertStoreError(.invalidReading(recordKey: "", reason: "the record key is empty")) {
            try store.save(batch(bad))
        }
        XCTAssertStoreError(.invalidBatch(reason: "20 readings were offered but only 3 records read")) {
            try store.save(batch(readings(count: 20, from: utc("2013-09-14T12:00:00Z")), recordsRead: 3))
        }
        XCTAssertEqual(try dump(file.path), before)
        XCTAssertEqual(try store.cursor(source: testSource, stream: "egv"), 5)
        XCTAssertEqual(try store.importRuns(limit: 10).count, 1)
        XCTAssertEqual(try store.recentDays(10).map(\.date.description), ["2013-09-13"])
    }

    func testRepeatsWithinOneBatch() throws {
        let file = try StoreFile()
        let store = try file.open()
        var offered = readings(count: 4, from: utc("2013-09-13T12:00:00Z"))
        offered.append(offered[1])
        offered += readings(count: 1, from: utc("2013-09-13T13:00:00Z"), firstIndex: 20)
        let summary = try store.save(batch(offered))
        XCTAssertEqual(summary.added, 5)
        XCTAssertEqual(summary.alreadyStored, 1)
        XCTAssertEqual(try count("glucose", in: file.path), 5)
        XCTAssertEqual(try sqlite3(file.path, "SELECT device_record_key FROM glucose ORDER BY time;"), "egv:1\negv:2\negv:3\negv:4\negv:20")

        var conflicting = readings(count: 4, from: utc("2013-09-14T12:00:00Z"), firstIndex: 10)
        var changed = conflicting[2]
        changed.mgdl += 1
        conflicting.append(changed)
        XCTAssertStoreError(.invalidReading(recordKey: "egv:12", reason: "the key appears twice in this import with different values")) {
            try store.save(batch(conflicting))
        }
        XCTAssertEqual(try count("glucose", in: file.path), 5)
    }

    /// Readings of three Days in the order a device sent them (back and forth across two local
    /// midnights), with every kind of value: each run of one Day is one INSERT … SELECT from the
    /// import's table function, and every column is stored as sent.
    func testReadingsAcrossDaysInAnyOrderAreStoredAsSent() throws {
        let file = try StoreFile()
        let store = try file.open()
        let sent = [
            GlucoseReading(
                time: utc("2013-09-13T06:55:00Z"), mgdl: 99.7, kind: .sensor, trend: .fortyFiveUp, noise: 2,
                recordKey: "egv:1", deviceTime: 370_000_300, displayTime: "2013-09-12T23:55:00"),
            GlucoseReading(
                time: utc("2013-09-13T07:05:00Z"), mgdl: 72, unit: .millimolesPerLiter, kind: .fingerstick,
                recordKey: "meter:2", deviceTime: 370_000_900, displayTime: "2013-09-13T00:05:00", note: "before meal"),
            GlucoseReading(
                time: utc("2013-09-13T06:58:00Z"), mgdl: 39, kind: .sensor, flag: .belowRange,
                recordKey: "egv:3", deviceTime: 370_000_480),
            GlucoseReading(
                time: utc("2013-09-14T07:10:00Z"), mgdl: 401, kind: .sensor, flag: .aboveRange, trend: .doubleUp, noise: 0,
                recordKey: "egv:4", deviceTime: 370_087_000, displayTime: "2013-09-14T00:10:00"),
        ]
        let summary = try store.save(batch(sent))
        XCTAssertEqual(summary.added, 4)
        XCTAssertEqual(summary.days.map(\.description), ["2013-09-12", "2013-09-13", "2013-09-14"])
        XCTAssertEqual(
            try sqlite3(
                file.path,
                """
                SELECT d.date, g.time, g.mgdl, g.unit, g.tag, ifnull(g.flag, '-'), g.kind, ifnull(g.trend, '-'), ifnull(g.noise, '-'),
                       g.device_record_key, g.device_time, ifnull(g.device_display_time, '-'), ifnull(g.note, '-'),
                       g.source_id, g.import_run_id = \(summary.runID), typeof(g.mgdl), typeof(g.noise), typeof(g.device_time)
                FROM glucose g JOIN day d ON d.id = g.day_id ORDER BY g.id;
                """),
            """
            2013-09-12|2013-09-13 06:55:00.000|99.7|mg/dL|in-range|-|sensor|FortyFiveUp|2|egv:1|370000300|2013-09-12T23:55:00|-|1|1|real|integer|integer
            2013-09-13|2013-09-13 07:05:00.000|72.0|mmol/L|in-range|-|fingerstick|-|-|meter:2|370000900|2013-09-13T00:05:00|before meal|1|1|real|null|integer
            2013-09-12|2013-09-13 06:58:00.000|39.0|mg/dL|hypo-l2|LO|sensor|-|-|egv:3|370000480|-|-|1|1|real|null|integer
            2013-09-14|2013-09-14 07:10:00.000|401.0|mg/dL|hyper-l2|HI|sensor|DoubleUp|0|egv:4|370087000|2013-09-14T00:10:00|-|1|1|real|integer|integer
            """)
        // Again, with one new reading between the Days already stored: only it is added.
        let again = try store.save(batch(sent + [reading(5, at: utc("2013-09-13T12:00:00Z"), 180)]))
        XCTAssertEqual(again.added, 1)
        XCTAssertEqual(again.alreadyStored, 4)
        XCTAssertEqual(again.days.map(\.description), ["2013-09-13"])
        XCTAssertEqual(try count("glucose", in: file.path), 5)
    }

    /// Columns every reading of a batch shares (here unit, kind, flag, noise and a note with a
    /// NUL inside) are bound once instead of read row by row: they are stored as sent all the
    /// same, byte for byte, and a batch that shares none of them (above) or some of them keeps
    /// each reading's own.
    func testColumnsEveryReadingSharesAreStoredAsSent() throws {
        let file = try StoreFile()
        let store = try file.open()
        let shared = (0..<3).map { i in
            GlucoseReading(
                time: utc("2013-09-13T07:00:00Z").addingTimeInterval(Double(i) * 60), mgdl: [405, 410, 415][i],
                unit: .millimolesPerLiter, kind: .fingerstick, flag: .aboveRange, trend: [.flat, nil, .singleUp][i], noise: 3,
                recordKey: "meter:\(i)", deviceTime: 370_000_000 + Int64(i), note: "after\u{0}run")
        }
        XCTAssertEqual(try store.save(batch(shared)).added, 3)
        XCTAssertEqual(
            try sqlite3(
                file.path,
                """
                SELECT g.mgdl, g.unit, g.kind, g.flag, ifnull(g.trend, '-'), g.noise, typeof(g.noise), hex(g.note), g.device_record_key
                FROM glucose g ORDER BY g.id;
                """),
            """
            405.0|mmol/L|fingerstick|HI|Flat|3|integer|61667465720072756E|meter:0
            410.0|mmol/L|fingerstick|HI|-|3|integer|61667465720072756E|meter:1
            415.0|mmol/L|fingerstick|HI|SingleUp|3|integer|61667465720072756E|meter:2
            """)

        // Unit and kind shared, flag, noise and note not.
        var mixed = readings(count: 3, from: utc("2013-09-14T07:00:00Z"), firstIndex: 10)
        mixed[0].flag = .belowRange
        mixed[1].noise = 5
        mixed[2].note = "walk"
        XCTAssertEqual(try store.save(batch(mixed)).added, 3)
        XCTAssertEqual(
            try sqlite3(
                file.path,
                """
                SELECT g.unit, g.kind, ifnull(g.flag, '-'), ifnull(g.noise, '-'), ifnull(g.note, '-'), g.device_record_key
                FROM glucose g WHERE g.device_record_key LIKE 'egv:%' ORDER BY g.id;
                """),
            """
            mg/dL|sensor|LO|1|-|egv:10
            mg/dL|sensor|-|5|-|egv:11
            mg/dL|sensor|-|1|walk|egv:12
            """)
    }

    /// The import's table function gives rows only to the import that passes it its readings:
    /// called from SQL without them (or with anything else in their place), it gives none.
    func testTheImportTableFunctionGivesNoRowsToOtherSQL() throws {
        let file = try StoreFile()
        let store = try file.open()
        _ = try store.save(batch(readings(count: 3, from: utc("2013-09-13T07:00:00Z"))))
        try store.database.read { db in
            for call in [
                "glucobridge_import_rows", "glucobridge_import_rows(NULL, 0)", "glucobridge_import_rows('rows', 0)",
                "glucobridge_import_rows(x'00000000', 0)",
            ] {
                XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM \(call)"), 0, call)
            }
        }
        XCTAssertEqual(try count("glucose", in: file.path), 3)
    }

    func testAReimportUnderAnotherTimeLeavesNoEmptyDay() throws {
        let file = try StoreFile()
        let store = try file.open()
        _ = try store.save(batch([reading(1, at: utc("2013-09-13T06:59:00Z"), 100)]))
        // The same record, its instant recomputed a few seconds later: across local midnight.
        let again = try store.save(batch([reading(1, at: utc("2013-09-13T07:00:10Z"), 100)]))
        XCTAssertEqual(again.added, 0)
        XCTAssertEqual(again.alreadyStored, 1)
        XCTAssertEqual(try sqlite3(file.path, "SELECT group_concat(date) FROM day;"), "2013-09-12")
    }
}
