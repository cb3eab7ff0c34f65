import Foundation
import GRDB
import ImportTestSupport
import Model
import TestSupport
import XCTest

@testable import Store

/// Listeners: the initial result, then one event per commit that changes the result, with what
/// was added, updated and removed; from this process and from other programs.
final class ListenerTests: XCTestCase {
    let day = DayDate("2013-09-13")!

    func testInitialResultThenOneEventPerCommittingTransaction() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        let first = try store.add(GlucoseLog(time: utc("2013-09-13T07:00:00Z"), value: 95))
        let (listener, inbox) = try store.listen(to: .glucose(.day(day)))

        let initial = try inbox.next()
        XCTAssertTrue(initial.isInitial)
        XCTAssertTrue(initial.isEmpty)
        XCTAssertEqual(initial.result, [first])

        // One import of three readings is one transaction: one event adding all three.
        _ = try store.save(batch(readings(count: 3, from: utc("2013-09-13T08:00:00Z"))))
        let imported = try inbox.next()
        XCTAssertFalse(imported.isInitial)
        XCTAssertEqual(imported.added.map(\.recordKey), ["egv:1", "egv:2", "egv:3"])
        XCTAssertEqual(imported.added.map(\.value), [100, 120, 140])
        XCTAssertEqual(imported.updated, [])
        XCTAssertEqual(imported.removed, [])
        XCTAssertEqual(imported.result.map(\.id), [first.id] + imported.added.map(\.id))

        // Commits that leave the result as it was make no event: a meal on the Day, a dose that
        // creates another Day, an import of readings already stored, a reading on another Day.
        try store.add(MealLog(time: utc("2013-09-13T09:00:00Z"), name: "Toast", carbs: 30))
        try store.add(InsulinLog(time: utc("2013-09-20T09:00:00Z"), units: 2))
        XCTAssertEqual(try store.save(batch(readings(count: 3, from: utc("2013-09-13T08:00:00Z")))).added, 0)
        try store.add(GlucoseLog(time: utc("2013-09-14T09:00:00Z"), value: 101))
        // The next event is the next relevant commit's.
        let meter = try store.add(GlucoseLog(time: utc("2013-09-13T12:00:00Z"), value: 5.2, unit: .millimolesPerLiter))
        let added = try inbox.next()
        XCTAssertEqual(added.added, [meter])
        XCTAssertTrue(added.updated.isEmpty && added.removed.isEmpty)
        XCTAssertEqual(added.result.count, 5)

        // Updated: the new values (and the store's new tag).
        var edited = first
        edited.log.value = 300
        edited = try store.update(edited)
        let updated = try inbox.next()
        XCTAssertEqual(updated.updated, [edited])
        XCTAssertEqual(updated.updated.first?.tag, .hyperLevel2)
        XCTAssertTrue(updated.added.isEmpty && updated.removed.isEmpty)

        // Removed: the old values.
        try store.remove(meter.id)
        let removed = try inbox.next()
        XCTAssertEqual(removed.removed, [meter])
        XCTAssertTrue(removed.added.isEmpty && removed.updated.isEmpty)
        XCTAssertEqual(removed.result.count, 4)

        // Moved to another Day: removed from this Day's result.
        _ = try store.update(edited.id, with: GlucoseLog(time: utc("2013-09-14T07:00:00Z"), value: 300))
        let moved = try inbox.next()
        XCTAssertEqual(moved.removed, [edited])
        XCTAssertEqual(moved.result.map(\.recordKey), ["egv:1", "egv:2", "egv:3"])
        XCTAssertEqual(inbox.pending, 0)
        listener.cancel()
    }

    func testEachKindHearsOnlyItsOwnCommits() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        let window = LogWindow.between(from: utc("2013-09-13T00:00:00Z"), to: utc("2013-09-14T00:00:00Z"))
        let (mealListener, meals) = try store.listen(to: .meals(window))
        let (exerciseListener, exercise) = try store.listen(to: .exercise(window))
        let (insulinListener, insulin) = try store.listen(to: .insulin(.everything))
        let (stressListener, stress) = try store.listen(to: .stress(.day(day)))
        XCTAssertEqual(try meals.next().result, [])
        XCTAssertEqual(try exercise.next().result, [])
        XCTAssertEqual(try insulin.next().result, [])
        XCTAssertEqual(try stress.next().result, [])

        let walk = try store.add(ExerciseLog(time: utc("2013-09-13T18:00:00Z"), name: "Walking", duration: 1800, intensity: .light))
        let dose = try store.add(InsulinLog(time: utc("2013-09-13T18:30:00Z"), units: 3))
        let lunch = try store.add(MealLog(time: utc("2013-09-13T12:00:00Z"), name: "Lunch", carbs: 50))
        // Outside the meals' window: no event.
        try store.add(MealLog(time: utc("2013-09-14T12:00:00Z"), name: "Next lunch", carbs: 50))
        let open = try store.startEpisode(.stress, at: utc("2013-09-13T20:00:00Z"))
        let favourite = try store.setFavourite(lunch.id, true)

        XCTAssertEqual(try exercise.next().added, [walk])
        XCTAssertEqual(try insulin.next().added, [dose])
        XCTAssertEqual(try meals.next().added, [lunch])
        XCTAssertEqual(try meals.next().updated, [favourite], "the second meal event is the favourite mark")
        XCTAssertEqual(try stress.next().added, [open])

        let closed = try store.stopEpisode(.stress, at: utc("2013-09-13T22:00:00Z"))
        let stopped = try stress.next()
        XCTAssertEqual(stopped.updated, [closed])
        XCTAssertEqual(stopped.updated.first?.duration, 7200)

        // A sync point for every listener: after these commits nothing else is pending.
        let run = try store.add(ExerciseLog(time: utc("2013-09-13T19:00:00Z"), name: "Running", duration: 600, intensity: .vigorous))
        XCTAssertEqual(try exercise.next().added, [run])
        XCTAssertEqual([meals.pending, exercise.pending, insulin.pending, stress.pending], [0, 0, 0, 0])
        for listener in [mealListener, exerciseListener, insulinListener, stressListener] { listener.cancel() }
    }

    func testDayListenersFollowTheSummaries() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "America/Los_Angeles")
        let (listener, inbox) = try store.listen(to: .days(last: 2))
        let (hypoListener, hypos) = try store.listen(to: .days(last: 10, filter: .hadHypo))
        XCTAssertEqual(try inbox.next().result, [])
        XCTAssertEqual(try hypos.next().result, [])

        try store.add(GlucoseLog(time: utc("2013-09-12T20:00:00Z"), value: 110))
        let first = try inbox.next()
        XCTAssertEqual(first.added.map(\.date.description), ["2013-09-12"])
        XCTAssertEqual(first.added.first?.average, 110)

        try store.add(GlucoseLog(time: utc("2013-09-13T20:00:00Z"), value: 150))
        XCTAssertEqual(try inbox.next().added.map(\.date.description), ["2013-09-13"])

        // A third Day pushes the oldest out of the last two.
        try store.add(MealLog(time: utc("2013-09-14T20:00:00Z"), name: "Soup", carbs: 20))
        let third = try inbox.next()
        XCTAssertEqual(third.added.map(\.date.description), ["2013-09-14"])
        XCTAssertEqual(third.removed.map(\.date.description), ["2013-09-12"])
        XCTAssertEqual(third.result.map(\.date.description), ["2013-09-14", "2013-09-13"])

        // The favourite mark and a new reading update a Day's summary.
        try store.toggleFavourite(day: DayDate("2013-09-13")!)
        let marked = try inbox.next()
        XCTAssertEqual(marked.updated.map(\.date.description), ["2013-09-13"])
        XCTAssertEqual(marked.updated.first?.isFavourite, true)
        try store.add(GlucoseLog(time: utc("2013-09-13T21:00:00Z"), value: 60))
        let low = try inbox.next()
        XCTAssertEqual(low.updated.first?.glucoseCount, 2)
        XCTAssertEqual(low.updated.first?.hadHypo, true)

        // The hypo filter heard nothing until the hypo.
        let hypo = try hypos.next()
        XCTAssertEqual(hypo.added.map(\.date.description), ["2013-09-13"])
        XCTAssertEqual(hypos.pending, 0)
        listener.cancel()
        hypoListener.cancel()
    }

    func testAllKindsWrittenInOneTransactionAreOneEvent() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        try store.add(GlucoseLog(time: utc("2013-09-13T07:00:00Z"), value: 95))
        let (listener, inbox) = try store.listen(to: .all(.day(day)))
        let initial = try inbox.next()
        XCTAssertTrue(initial.isInitial)
        XCTAssertEqual(initial.glucose.result.count, 1)
        XCTAssertEqual(initial.days.result.map(\.date), [day])
        XCTAssertEqual(initial.changedKinds, [])

        // A meal and a dose in one transaction, as the app might write them.
        try store.database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO meal (day_id, time, name, carbs_g) SELECT id, '2013-09-13 12:00:00.000', 'Lunch', 40
                        FROM day WHERE date = '2013-09-13';
                    INSERT INTO insulin (day_id, time, units) SELECT id, '2013-09-13 12:05:00.000', 4
                        FROM day WHERE date = '2013-09-13';
                    """)
        }
        let both = try inbox.next()
        XCTAssertEqual(both.changedKinds, [.meal, .insulin])
        XCTAssertEqual(both.meals.added.map(\.name), ["Lunch"])
        XCTAssertEqual(both.insulin.added.map(\.units), [4])
        XCTAssertEqual(both.days.updated.map(\.carbs), [40])
        XCTAssertTrue(both.glucose.isEmpty)

        // A favourite mark changes the Day only.
        try store.toggleFavourite(day: day)
        let marked = try inbox.next()
        XCTAssertEqual(marked.changedKinds, [])
        XCTAssertEqual(marked.days.updated.map(\.isFavourite), [true])

        // Another Day's logs are outside the window.
        try store.add(MealLog(time: utc("2013-09-14T12:00:00Z"), name: "Elsewhere"))
        try store.startEpisode(.illness, at: utc("2013-09-13T15:00:00Z"))
        let ill = try inbox.next()
        XCTAssertEqual(ill.changedKinds, [.illness])
        XCTAssertEqual(ill.days.updated.map(\.hadIllness), [true])
        XCTAssertEqual(inbox.pending, 0)
        listener.cancel()
    }

    func testAllWithInstantsCoversTheDaysOfTheWindow() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "America/Los_Angeles")
        // 2013-09-13 07:00 UTC to 2013-09-15 07:00 UTC: the Days 2013-09-13 and 2013-09-14 in Los Angeles.
        let window = LogWindow.between(from: utc("2013-09-13T07:00:00Z"), to: utc("2013-09-15T07:00:00Z"))
        for time in ["2013-09-13T06:59:59Z", "2013-09-13T07:00:00Z", "2013-09-15T06:59:59Z", "2013-09-15T07:00:00Z"] {
            try store.add(InsulinLog(time: utc(time), units: 1))
        }
        let (listener, inbox) = try store.listen(to: .all(window))
        let initial = try inbox.next()
        XCTAssertEqual(initial.insulin.result.map(\.time), [utc("2013-09-13T07:00:00Z"), utc("2013-09-15T06:59:59Z")])
        XCTAssertEqual(initial.days.result.map(\.date.description), ["2013-09-14", "2013-09-13"])
        listener.cancel()
    }

    func testCancelledAndReleasedListenersStop() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        XCTAssertFalse(store.externalChanges.isPolling)
        let (listener, inbox) = try store.listen(to: .meals(.everything))
        let releasedInbox = Inbox<Changes<Stored<MealLog>>>()
        var released: StoreListener? = try store.listen(
            to: .meals(.everything), onError: { releasedInbox.fail($0) }, onEvent: releasedInbox.receive)
        let (witness, witnessInbox) = try store.listen(to: .meals(.everything))
        XCTAssertTrue(store.externalChanges.isPolling)
        _ = try inbox.next()
        _ = try releasedInbox.next()
        _ = try witnessInbox.next()

        listener.cancel()
        listener.cancel()
        XCTAssertFalse(listener.isActive)
        XCTAssertEqual(released?.isActive, true)
        released = nil
        XCTAssertTrue(store.externalChanges.isPolling, "one listener is left")
        let meal = try store.add(MealLog(time: utc("2013-09-13T12:00:00Z"), name: "Soup"))
        XCTAssertEqual(try witnessInbox.next().added, [meal])
        XCTAssertEqual(inbox.pending, 0)
        XCTAssertEqual(releasedInbox.pending, 0)
        witness.cancel()
        XCTAssertFalse(store.externalChanges.isPolling, "the last listener stops the polling")

        // A new listener starts it again.
        let (again, againInbox) = try store.listen(to: .meals(.everything))
        XCTAssertEqual(try againInbox.next().result, [meal])
        XCTAssertTrue(store.externalChanges.isPolling)
        again.cancel()
    }

    func testAsyncSequenceOfEvents() async throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        var received: [Changes<Stored<MealLog>>] = []
        for try await changes in store.events(of: .meals(.everything)) {
            received.append(changes)
            if changes.isInitial {
                try store.add(MealLog(time: utc("2013-09-13T12:00:00Z"), name: "Soup", carbs: 12))
                try store.add(MealLog(time: utc("2013-09-13T13:00:00Z"), name: "Pie", carbs: 40))
            } else if changes.result.count == 2 {
                break
            }
        }
        XCTAssertEqual(received.first?.isInitial, true)
        XCTAssertEqual(received.dropFirst().flatMap(\.added).map(\.name), ["Soup", "Pie"])
        XCTAssertFalse(store.externalChanges.isPolling, "leaving the loop stops the listener")
    }

    func testAFailingResultEndsTheListenerWithATypedError() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        let (listener, inbox) = try store.listen(to: .meals(.everything))
        _ = try inbox.next()
        // Another program writes a time glucobridge cannot read.
        try sqlite3(
            file.path,
            """
            PRAGMA ignore_check_constraints = ON;
            INSERT INTO day (date) VALUES ('2013-09-13');
            INSERT INTO meal (day_id, time, name) VALUES (1, 'yesterday', 'Soup');
            """)
        XCTAssertThrowsError(try inbox.next()) { error in
            XCTAssertEqual(error as? StoreError, .database("the store holds a value glucobridge cannot read: meal.time = 'yesterday'"))
        }
        XCTAssertFalse(listener.isActive)
        XCTAssertFalse(store.externalChanges.isPolling)
    }

    // MARK: - Other programs

    /// The `sqlite3` program stands for the app or the ingest daemon: its commits wake a
    /// listener of this process (within the poll interval, 250 ms; the 5 s timeout only bounds
    /// a failing test).
    func testCommitsByAnotherProgramWakeAListener() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        XCTAssertEqual(store.changePollInterval, 0.25)
        let (listener, inbox) = try store.listen(to: .glucose(.everything))
        XCTAssertEqual(try inbox.next().result, [])

        try sqlite3(
            file.path,
            """
            INSERT INTO day (date) VALUES ('2013-09-13') ON CONFLICT (date) DO NOTHING;
            INSERT INTO glucose (day_id, time, mgdl, tag, kind)
                SELECT id, '2013-09-13 08:00:00.000', 123, 'in-range', 'fingerstick' FROM day WHERE date = '2013-09-13';
            """)
        let first = try inbox.next()
        XCTAssertEqual(first.added.map(\.value), [123])
        XCTAssertEqual(first.added.map(\.day.description), ["2013-09-13"])

        // Three readings in one transaction of the other program: one event.
        try sqlite3(
            file.path,
            """
            BEGIN IMMEDIATE;
            INSERT INTO glucose (day_id, time, mgdl, tag) VALUES (1, '2013-09-13 09:00:00.000', 60, 'hypo-l1');
            INSERT INTO glucose (day_id, time, mgdl, tag) VALUES (1, '2013-09-13 09:05:00.000', 65, 'hypo-l1');
            INSERT INTO glucose (day_id, time, mgdl, tag) VALUES (1, '2013-09-13 09:10:00.000', 72, 'in-range');
            COMMIT;
            """)
        let three = try inbox.next()
        XCTAssertEqual(three.added.map(\.value), [60, 65, 72])

        // Its commits that change no glucose make no event; its update and delete are reported.
        try sqlite3(file.path, "INSERT INTO insulin (day_id, time, units) VALUES (1, '2013-09-13 10:00:00.000', 2);")
        try sqlite3(file.path, "UPDATE glucose SET mgdl = 124 WHERE mgdl = 123;")
        let updated = try inbox.next()
        XCTAssertEqual(updated.updated.map(\.value), [124])
        XCTAssertEqual(updated.updated.map(\.id), [first.added[0].id])
        try sqlite3(file.path, "DELETE FROM glucose WHERE mgdl = 72;")
        XCTAssertEqual(try inbox.next().removed.map(\.value), [72])

        // This process's own writes are still heard once each.
        let own = try store.add(GlucoseLog(time: utc("2013-09-13T11:00:00Z"), value: 100))
        XCTAssertEqual(try inbox.next().added, [own])
        XCTAssertEqual(inbox.pending, 0)
        listener.cancel()
    }

    /// Another connection of this process (here a GRDB queue) is, for the store, another program.
    func testCommitsByAnotherConnectionWakeAListener() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        let (listener, inbox) = try store.listen(to: .days(last: 5))
        XCTAssertEqual(try inbox.next().result, [])
        let other = try DatabaseQueue(path: file.path)
        try other.write { db in
            try db.execute(sql: "INSERT INTO day (date) VALUES ('2013-09-13')")
            try db.execute(sql: "INSERT INTO meal (day_id, time, carbs_g) VALUES (1, '2013-09-13 12:00:00.000', 33)")
        }
        let event = try inbox.next()
        XCTAssertEqual(event.added.map(\.date.description), ["2013-09-13"])
        XCTAssertEqual(event.added.first?.carbs, 33)
        try other.write { db in try db.execute(sql: "UPDATE meal SET carbs_g = 44") }
        XCTAssertEqual(try inbox.next().updated.map(\.carbs), [44])
        listener.cancel()
    }

    /// A store that another program changed while no listener was registered: the first
    /// listener starts from the file as it is.
    func testAListenerStartsFromTheCurrentFile() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        try sqlite3(
            file.path,
            """
            INSERT INTO day (date) VALUES ('2013-09-13');
            INSERT INTO meal (day_id, time, name) VALUES (1, '2013-09-13 12:00:00.000', 'Soup');
            """)
        let (listener, inbox) = try store.listen(to: .meals(.day(day)))
        XCTAssertEqual(try inbox.next().result.map(\.name), ["Soup"])
        try sqlite3(file.path, "INSERT INTO meal (day_id, time, name) VALUES (1, '2013-09-13 13:00:00.000', 'Pie');")
        XCTAssertEqual(try inbox.next().added.map(\.name), ["Pie"])
        try sqlite3(file.path, "DELETE FROM meal WHERE name = 'Soup';")
        XCTAssertEqual(try inbox.next().removed.map(\.name), ["Soup"])
        listener.cancel()
    }
}
