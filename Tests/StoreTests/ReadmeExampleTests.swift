import Foundation
import Model
import Store
import TestSupport
import XCTest

/// The library example in README.md, kept compiling and true.
final class ReadmeExampleTests: XCTestCase {
    func testReadmeExample() throws {
        let path = try Fixtures.temporaryDirectory().appendingPathComponent("store.sqlite").path
        // README example begins
        let store = try SharedStore(path: path, timeZone: TimeZone(identifier: "Europe/Berlin"))
        let breakfast = try store.add(MealLog(time: Date(), name: "Porridge", carbs: 45, protein: 9, fat: 6))
        _ = try store.add(GlucoseLog(time: Date(), value: 6.1, unit: .millimolesPerLiter))
        _ = try store.startEpisode(.stress, at: Date())
        let today = breakfast.day
        let meals = try store.logs(MealLog.self, of: today)        // sorted by time
        let summary = try store.recentDays(7).first                 // newest Day first
        print(meals.count, summary?.carbs ?? 0, summary?.timeInRange ?? 0, summary?.hadStress ?? false)
        // README example ends
        XCTAssertEqual(meals.map(\.name), ["Porridge"])
        XCTAssertEqual(summary?.carbs, 45)
        XCTAssertEqual(summary?.timeInRange, 1)
        XCTAssertEqual(summary?.hadStress, true)
    }

    func testReadmeListenerExample() throws {
        let path = try Fixtures.temporaryDirectory().appendingPathComponent("store.sqlite").path
        let store = try SharedStore(path: path, timeZone: TimeZone(identifier: "Europe/Berlin"))
        let today = try store.add(GlucoseLog(time: Date(), value: 98)).day
        let inbox = Inbox<Changes<Stored<GlucoseLog>>>()
        let witness = try store.listen(to: .glucose(.day(today)), onEvent: inbox.receive)
        // README listener example begins
        let listener = try store.listen(to: .glucose(.day(today))) { changes in
            print(changes.result.count, "readings;", changes.added.count, "new,", changes.removed.count, "removed")
        }
        // README listener example ends
        XCTAssertTrue(listener.isActive)
        XCTAssertEqual(try inbox.next().result.map(\.value), [98])
        let added = try store.add(GlucoseLog(time: Date(), value: 112))
        XCTAssertEqual(try inbox.next().added, [added])
        // README listener example continues
        listener.cancel()
        // README listener example ends
        XCTAssertFalse(listener.isActive)
        witness.cancel()
    }

    /// The Swift blocks of README.md are the code between the markers of these tests.
    func testReadmeShowsTheseExamples() throws {
        let readme = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let tests = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        /// The code between the marker comments (at the indentation of a test's body, so that the
        /// markers named in this function are not taken for markers).
        func between(_ start: String, _ end: String) -> [String] {
            tests.components(separatedBy: "\n        " + start).dropFirst().map { part in
                // The lines after the start marker's line, up to the end marker's line.
                part.components(separatedBy: "\n        " + end)[0].split(separator: "\n", omittingEmptySubsequences: false)
                    .dropFirst()
                    .map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }
                    .joined(separator: "\n")
            }
        }
        let blocks = between("// README example begins", "// README example ends")
            + between("// README listener example begins", "// README listener example ends")
            + between("// README listener example continues", "// README listener example ends")
        XCTAssertEqual(blocks.count, 3)
        for block in blocks {
            XCTAssertTrue(readme.contains(block), "README.md lacks:\n\(block)")
        }
    }
}
