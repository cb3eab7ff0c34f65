import Foundation
import Model
import Pipeline

/// The instants an import may store: from 2000-01-01 to the capture's own time plus a small
/// tolerance. No supported device records earlier, and nothing is recorded after the session that
/// read it; anything outside comes from a damaged record or a wrong clock, and is counted and
/// named in the import report instead of stored.
package struct PlausibleWindow: Sendable, Equatable {
    /// 2000-01-01T00:00:00Z.
    package static let earliest = Date(timeIntervalSince1970: 946_684_800)
    /// How far after the capture's time a record may fall (a device clock a little ahead of the
    /// host's, a reading made during the download).
    package static let tolerance: TimeInterval = 5 * 60
    /// The event name records outside the window are counted under.
    package static let eventName = "implausible-time"

    /// The capture's own time: the last packet's host time, or now.
    package var captureTime: Date

    package init(captureTime: Date) {
        self.captureTime = captureTime
    }

    package var latest: Date { captureTime.addingTimeInterval(Self.tolerance) }

    package func contains(_ instant: Date) -> Bool {
        instant >= Self.earliest && instant <= latest
    }

    /// The window of a capture whose packets carry `timestamps`: the latest of them that is itself
    /// plausible (after 2000, not after `now`), or `now` when none is (a transcript, or a damaged
    /// last timestamp).
    package static func forCapture(timestamps: [Date], now: Date = Date()) -> PlausibleWindow {
        var latest: Date?
        for time in timestamps where time >= earliest && time <= now {
            if latest.map({ time > $0 }) ?? true { latest = time }
        }
        return PlausibleWindow(captureTime: latest ?? now)
    }

    /// "2000-01-01 to 2026-03-10T15:05:00Z".
    package var description: String {
        "2000-01-01 to \(Self.utc(latest))"
    }

    /// `2026-03-10T15:05:00Z`, or the seconds since 1970 when the year is out of ISO 8601's range.
    package static func utc(_ instant: Date) -> String {
        let seconds = instant.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 2.5e11 else { return "\(seconds) s since 1970" }
        return CivilDate.wallClock(Int64(seconds.rounded(.down))) + "Z"
    }

    /// Splits `items` into those inside the window and a count and note for those outside.
    func keep<Item>(
        _ items: [Item], what: String, time: (Item) -> Date, name: (Item) -> String
    ) -> (kept: [Item], outside: [Item], note: String?) {
        // Usually every item is inside: then the array is handed back as it is, not copied.
        guard items.contains(where: { !contains(time($0)) }) else { return (items, [], nil) }
        var kept: [Item] = []
        var outside: [Item] = []
        for item in items {
            if contains(time(item)) { kept.append(item) } else { outside.append(item) }
        }
        guard !outside.isEmpty else { return (kept, [], nil) }
        let shown = outside.prefix(5).map { "\(name($0)) at \(Self.utc(time($0)))" }.joined(separator: ", ")
        let more = outside.count > 5 ? " and \(outside.count - 5) more" : ""
        let note = "\(outside.count) \(what) outside the plausible time window \(description) not stored: \(shown)\(more)"
        return (kept, outside, note)
    }

    /// The batch with only the readings inside the window; the others are counted as
    /// ``eventName`` and named in a note.
    package func filter(_ batch: ImportBatch) -> ImportBatch {
        var batch = batch
        let (kept, outside, note) = keep(batch.glucose, what: "readings", time: \.time, name: \.recordKey)
        guard let note else { return batch }
        batch.glucose = kept
        batch.events.append(ImportEvent(name: Self.eventName, count: outside.count))
        batch.notes.append(note)
        return batch
    }

    /// The samples inside the window, with a count and note for the others (a damaged capture
    /// timestamp puts a sample in another century).
    package func filter(_ samples: [ActivitySample]) -> (samples: [ActivitySample], event: ImportEvent?, note: String?) {
        let (kept, outside, note) = keep(samples, what: "sensor samples", time: \.time, name: { "\($0.sensor.rawValue) sample" })
        return (kept, outside.isEmpty ? nil : ImportEvent(name: Self.eventName, count: outside.count), note)
    }

    /// The activity batch with only the minutes and sessions inside the window.
    package func filter(_ batch: ActivityBatch) -> ActivityBatch {
        var batch = batch
        let minutes = keep(batch.minutes, what: "activity minutes", time: \.start, name: { _ in "minute" })
        let sessions = keep(batch.sessions, what: "exercise sessions", time: \.start, name: \.recordKey)
        batch.minutes = minutes.kept
        batch.sessions = sessions.kept
        let outside = minutes.outside.count + sessions.outside.count
        if outside > 0 { batch.events.append(ImportEvent(name: Self.eventName, count: outside)) }
        batch.notes += [minutes.note, sessions.note].compactMap { $0 }
        return batch
    }
}

/// The device's clock (or time base) would put every record of an import outside the plausible
/// window: the import is refused and nothing is written.
public struct ImplausibleClockError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the device said, as read (`the device's clock read 2043-05-01T10:00:00`).
    package var clock: String
    /// How many records it would have placed, and where the first and last would have landed.
    package var records: Int
    package var first: Date
    package var last: Date
    package var window: PlausibleWindow

    public var description: String {
        let span = first == last ? "at \(PlausibleWindow.utc(first))" : "between \(PlausibleWindow.utc(first)) and \(PlausibleWindow.utc(last))"
        return
            "\(clock): placing the records by it would put all \(records) of them \(span), outside the plausible window \(window.description); the clock reply looks damaged, so nothing was stored"
    }
}
