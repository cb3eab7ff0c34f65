import Foundation
import Store

// The store's file: the first argument, or store.sqlite here.
let path = CommandLine.arguments.dropFirst().first ?? "store.sqlite"
let store = try SharedStore(path: path, timeZone: TimeZone(identifier: "Europe/Berlin"))

// Writes go through the store: each log is filed under the Day of its time.
let breakfast = try store.add(MealLog(time: Date(), name: "Porridge", carbs: 45, protein: 9, fat: 6))
_ = try store.add(GlucoseLog(time: Date(), value: 6.1, unit: .millimolesPerLiter))
_ = try store.startEpisode(.stress, at: Date())
_ = try store.stopEpisode(.stress, at: Date())
let today = breakfast.day
let meals = try store.logs(MealLog.self, of: today)        // sorted by time
let summary = try store.recentDays(7).first                 // newest Day first
print(meals.count, summary?.carbs ?? 0, summary?.timeInRange ?? 0, summary?.hadStress ?? false)

// Anything else is read through the reader (GRDB's DatabaseReader, re-exported by Store).
let unit: GlucoseUnit = try store.displayUnit()
let readings = try store.reader.read { db in
    try Int.fetchOne(db, sql: "SELECT count(*) FROM glucose") ?? 0
}
print(readings, "readings, shown in", unit.rawValue)

try watch(store, day: today)
