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
}
