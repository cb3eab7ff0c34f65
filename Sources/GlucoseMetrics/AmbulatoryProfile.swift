import Foundation

/// The Ambulatory Glucose Profile curve: CGM readings of every Day folded onto one 24-hour
/// clock, with the 5th, 25th, 50th, 75th and 95th percentiles per time of day (Bergenstal et al.,
/// "Recommendations for standardizing glucose reporting and analysis", Diabetes Technol Ther
/// 2013;15(3):198–211).
///
/// Readings fall into 15-minute bins of local clock time (96 a day). Each bin's percentiles are
/// computed from its readings (linear between order statistics, R's type 7), then each
/// percentile curve is smoothed by a moving average over 5 bins (the bin and two either side,
/// 75 minutes, wrapping round midnight), weighted by the readings in each bin.
package struct AmbulatoryProfile: Sendable, Equatable {
    package static let binMinutes = 15
    package static let smoothingBins = 5
    package static let percentiles: [Double] = [5, 25, 50, 75, 95]

    /// One point per bin, at the bin's centre (minutes after local midnight); nil for a bin
    /// without readings within the smoothing window.
    package struct Point: Sendable, Equatable {
        package var minute: Double
        /// The 5th, 25th, 50th, 75th and 95th percentiles, in mg/dL.
        package var values: [Double]
    }

    package var points: [Point?]

    /// `readings`: (minute of the local day 0..<1440, mg/dL).
    package init(readings: [(minute: Double, mgdl: Double)]) {
        let binCount = 1440 / Self.binMinutes
        var bins = [[Double]](repeating: [], count: binCount)
        for reading in readings {
            let bin = min(binCount - 1, max(0, Int(reading.minute) / Self.binMinutes))
            bins[bin].append(reading.mgdl)
        }
        let raw: [[Double]?] = bins.map { values in
            values.isEmpty ? nil : Self.percentiles.map { Self.quantile(values.sorted(), $0 / 100) }
        }
        let half = Self.smoothingBins / 2
        points = (0..<binCount).map { bin in
            var sums = [Double](repeating: 0, count: Self.percentiles.count)
            var weight = 0.0
            for offset in -half...half {
                let neighbour = (bin + offset + binCount) % binCount
                guard let values = raw[neighbour] else { continue }
                let count = Double(bins[neighbour].count)
                for index in sums.indices { sums[index] += values[index] * count }
                weight += count
            }
            guard raw[bin] != nil, weight > 0 else { return nil }
            return Point(minute: Double(bin * Self.binMinutes) + Double(Self.binMinutes) / 2, values: sums.map { $0 / weight })
        }
    }

    /// The `p` quantile (0…1) of ascending `values`, linear between order statistics (type 7).
    package static func quantile(_ sorted: [Double], _ p: Double) -> Double {
        guard sorted.count > 1 else { return sorted[0] }
        let position = p * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }
}
