import Foundation
import Model
import Store

/// The consensus CGM metrics of a period (International Consensus on Time in Range, Battelino
/// et al., Diabetes Care 2019;42(8):1593–1603), computed from the stored CGM readings.
///
/// - Fingerstick readings are left out (and counted): the metrics are CGM metrics.
/// - Mean and SD are over the readings (SD of the sample, n − 1, as R's `sd` in iglu and as the
///   AGP tools compute it); CV = 100 × SD / mean, over the whole period (not a mean of daily CVs).
/// - GMI (%) = 3.31 + 0.02392 × mean mg/dL (Bergenstal et al., Diabetes Care 2018;41:2275);
///   nil below 70 % coverage, where the consensus does not trust it.
/// - Coverage: readings × each device's interval ÷ the period's length (at most 100 %).
/// - Time in ranges: the share of readings by the store's tags (< 54, 54 to < 70, 70–180,
///   > 180 to 250, > 250 mg/dL with the consensus thresholds, on each value as the device sent it).
/// - Events: ``EventDetector``.
///
/// The values are unrounded; ``rounded(_:)`` gives them as reported.
package struct GlucoseStatistics: Sendable, Equatable {
    package var period: DateInterval
    package var readings: Int
    package var fingersticksExcluded: Int
    /// The interval of the device with the most readings (5 minutes without readings).
    package var interval: TimeInterval
    package var coveragePercent: Double
    package var mean: Double?
    package var sd: Double?
    package var cvPercent: Double?
    package var gmiPercent: Double?
    /// The share of readings with each tag, in percent (every tag present; 0 without readings).
    package var timeInRanges: [GlucoseTag: Double]
    package var events: [GlycaemicEvent]

    /// Below this coverage GMI is not given and the report says the metrics mean little.
    package static let minimumCoveragePercent = 70.0

    /// The metrics of the readings with `period.start ≤ time < period.end`; others are ignored.
    package init(readings all: [StoredGlucose], period: DateInterval, thresholds: GlucoseThresholds) {
        self.period = period
        let inPeriod = all.filter { $0.time >= period.start && $0.time < period.end }.sorted { $0.time < $1.time }
        let cgm = inPeriod.filter { $0.kind == .sensor }
        readings = cgm.count
        fingersticksExcluded = inPeriod.count - cgm.count

        let devices = SensorInterval.byDevice(cgm)
        interval = devices.max { $0.readings < $1.readings }?.interval ?? SensorInterval.fallback
        let covered = devices.reduce(0.0) { $0 + Double($1.readings) * $1.interval }
        coveragePercent = period.duration > 0 ? min(100, covered / period.duration * 100) : 0

        var shares: [GlucoseTag: Double] = [:]
        for tag in GlucoseTag.allCases {
            shares[tag] = cgm.isEmpty ? 0 : Double(cgm.filter { $0.tag == tag }.count) / Double(cgm.count) * 100
        }
        timeInRanges = shares

        if cgm.isEmpty {
            mean = nil
            sd = nil
            cvPercent = nil
            gmiPercent = nil
        } else {
            let values = cgm.map(\.mgdl)
            let mean = values.reduce(0, +) / Double(values.count)
            self.mean = mean
            if values.count >= 2 {
                let sd = (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)).squareRoot()
                self.sd = sd
                cvPercent = 100 * sd / mean
            } else {
                sd = nil
                cvPercent = nil
            }
            gmiPercent = coveragePercent >= Self.minimumCoveragePercent ? 3.31 + 0.02392 * mean : nil
        }
        events = EventDetector(interval: interval, thresholds: thresholds)
            .events(in: cgm.map { (time: $0.time, mgdl: $0.mgdl, tag: $0.tag) })
    }

    /// The number of events of `kind`.
    package func count(_ kind: GlycaemicEventKind) -> Int { events.filter { $0.kind == kind }.count }

    /// `value` as reported: one decimal (percentages, mg/dL, GMI). The AGP report prints time
    /// in ranges and mean glucose as whole numbers; one decimal keeps a share such as 0.4 %
    /// below 54 mg/dL from reading as 0 against a target of < 1 %.
    package static func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}
