import AppTestSupport
import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// The ingest side and the app side as two processes: the built `glucobridge` program writes,
/// a listener of this process hears it.
final class CrossProcessEndToEndTests: XCTestCase {
    /// The listener polls the file every 250 ms (`SharedStore.changePollInterval`), which is
    /// what keeps a commit by another process within a second of the listener; the 5 s timeout
    /// only bounds a failing test.
    func testAReadingLoggedByAnotherProcessWakesAListener() throws {
        let cli = try CLIStore(zone: "America/Los_Angeles")
        let inbox = Inbox<Changes<Stored<GlucoseLog>>>()
        let listener = try cli.store.listen(
            to: .glucose(.day(DayDate("2013-09-13")!)), onError: { inbox.fail($0) }, onEvent: inbox.receive)
        XCTAssertEqual(try inbox.next().result, [])

        let program = BuiltProducts.executable("glucobridge")
        let logged = try runProcess(program, ["log", "glucose", "--at", "2013-09-13 08:00", "--value", "123", "--store", cli.path])
        XCTAssertEqual(logged.status, 0, logged.stderr)
        XCTAssertEqual(logged.stdout, "added glucose #1 on 2013-09-13 at 08:00: 123 mg/dL, in range, fingerstick\n")
        let event = try inbox.next()
        XCTAssertEqual(event.added.map(\.value), [123])
        XCTAssertEqual(event.added.map(\.time), [utc("2013-09-13T15:00:00Z")])

        // An edit and a removal by the other process are reported as such.
        XCTAssertEqual(try runProcess(program, ["edit", "glucose", "1", "--value", "60", "--store", cli.path]).status, 0)
        let edited = try inbox.next()
        XCTAssertEqual(edited.updated.map(\.value), [60])
        XCTAssertEqual(edited.updated.map(\.tag), [.hypoLevel1])
        // A meal changes no glucose: no event; the next one is the removal's.
        XCTAssertEqual(try runProcess(program, ["log", "meal", "--at", "2013-09-13 12:00", "--store", cli.path]).status, 0)
        XCTAssertEqual(try runProcess(program, ["remove", "glucose", "1", "--store", cli.path]).status, 0)
        XCTAssertEqual(try inbox.next().removed.map(\.value), [60])
        XCTAssertEqual(inbox.pending, 0)
        listener.cancel()
    }
}
