import Foundation
import Store

/// How often a CGM reports: found from the readings themselves, per device.
package enum SensorInterval {
    /// Used for a device with fewer than two readings: the 5 minutes of Dexcom and most sensors.
    package static let fallback: TimeInterval = 300

    /// The median spacing of consecutive readings of one device, to the whole minute (1 to 15
    /// minutes): 5 min for a Dexcom G4–G7, 15 min for a FreeStyle Libre's history.
    package static func of(_ times: [Date]) -> TimeInterval {
        guard times.count >= 2 else { return fallback }
        let sorted = times.sorted()
        let gaps = zip(sorted.dropFirst(), sorted).map { $0.timeIntervalSince($1) }.filter { $0 > 0 }.sorted()
        guard !gaps.isEmpty else { return fallback }
        let median = gaps.count % 2 == 1 ? gaps[gaps.count / 2] : (gaps[gaps.count / 2 - 1] + gaps[gaps.count / 2]) / 2
        return min(900, max(60, (median / 60).rounded() * 60))
    }

    /// The readings grouped by the device they came from (app-entered readings form one group),
    /// each with its interval.
    static func byDevice(_ readings: [StoredGlucose]) -> [(readings: Int, interval: TimeInterval)] {
        var groups: [String: [Date]] = [:]
        for reading in readings {
            groups["\(reading.sourceFamily ?? ""):\(reading.sourceSerial ?? "")", default: []].append(reading.time)
        }
        return groups.keys.sorted().map { key in (groups[key]!.count, of(groups[key]!)) }
    }
}
