import Foundation
import Store

/// Prints the Day's readings at once, then after every commit that changes them.
func watch(_ store: SharedStore, day: DayDate) throws {
    let listener = try store.listen(to: .glucose(.day(day))) { changes in
        print(changes.result.count, "readings;", changes.added.count, "new,", changes.removed.count, "removed")
    }
    _ = try store.add(GlucoseLog(time: Date(), value: 112))   // heard by the listener
    Thread.sleep(forTimeInterval: 0.5)                          // a command-line example: let the events arrive
    // … and when the view closes:
    listener.cancel()
}
