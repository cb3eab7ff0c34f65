import ArgumentParser
import Foundation
import Model
import Store

/// `--from`, `--to`, `--last`: the period a summary view covers, in whole Days of the store's
/// zone unless instants are given.
struct PeriodOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The first Day (2024-05-01) or instant to include: \(TimeInput.help).", valueName: "when"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("The Day to end with (it counts whole) or the instant to stop before.", valueName: "when"))
    var to: String?

    @Option(
        name: .long,
        help: ArgumentHelp("How many Days (default 14), ending with the newest Day holding CGM readings, or starting at --from.", valueName: "N"))
    var last: Int?

    static let defaultDays = 14

    /// The period: `--from`/`--to` as given; otherwise `--last` Days (default 14) ending with the
    /// newest Day holding a CGM reading (or today), or starting at `--from`. The end is never
    /// after `now`: the part of today still to come is not counted as missing data.
    func period(_ store: SharedStore, now: Date = Date()) throws -> DateInterval {
        let zone = store.timeZone
        if to != nil, last != nil { throw CLIError("give --to or --last, not both") }
        if let last, last < 1 { throw CLIError("--last must be 1 or more Days, not \(last)") }
        let days = last ?? Self.defaultDays
        var start = try from.map { try TimeInput.bound($0, .start, zone: zone, now: now) }
        var end = try to.map { try TimeInput.bound($0, .end, zone: zone, now: now) }
        if start == nil, end == nil {
            let newest = try store.latestGlucoseTime(kind: .sensor) ?? now
            let lastDay = DayDate(instant: min(newest, now), timeZone: zone)
            end = lastDay.adding(days: 1).start(in: zone)
        }
        if let start0 = start, end == nil {
            end =
                last == nil && from != nil
                ? DayDate(instant: now, timeZone: zone).adding(days: 1).start(in: zone)
                : DayDate(instant: start0, timeZone: zone).adding(days: days).start(in: zone)
        }
        if start == nil, let end0 = end {
            start = DayDate(instant: end0.addingTimeInterval(-1), timeZone: zone).adding(days: 1 - days).start(in: zone)
        }
        guard let start, var end else { preconditionFailure("both bounds are set above") }
        end = min(end, max(now, start))
        guard start < end else {
            throw CLIError(
                "the period from \(Format.localDateTime(start, zone: zone)) to \(LocalTimeText.named(end, zone: zone)) is empty: --from must come before --to"
            )
        }
        return DateInterval(start: start, end: end)
    }
}
