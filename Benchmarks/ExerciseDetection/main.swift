// Exercise detection throughput: a week of a heart-rate band (1 sample/s) and a running pod
// (1 sample/2 s) with a walk and a run each day, resampled to minutes and searched for sessions.
// Run with: swift run -c release glucobridge-exercise-bench [days]
import Foundation
import Ingest
import Model

let days = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 7
let start = Date(timeIntervalSince1970: 1_714_521_600)  // 2024-05-01T00:00:00Z

/// One day: the band on from 07:00 to 22:00 (70 bpm at rest); a 40-minute walk at 08:00
/// (115 steps/min, 105 bpm) and a 30-minute run at 18:00 (160 steps/min, 150 bpm).
var samples: [ActivitySample] = []
for day in 0..<days {
    let midnight = start.addingTimeInterval(Double(day) * 86_400)
    for second in stride(from: 7 * 3600, to: 22 * 3600, by: 1) {
        let time = midnight.addingTimeInterval(Double(second))
        let walking = (8 * 3600..<8 * 3600 + 2400).contains(second)
        let running = (18 * 3600..<18 * 3600 + 1800).contains(second)
        let rate = walking ? 105.0 : running ? 150 : 70
        samples.append(ActivitySample(time: time, sensor: .heartRateBand, heartRate: rate, skinContact: true))
        if (walking || running) && second % 2 == 0 {
            samples.append(
                ActivitySample(
                    time: time, sensor: .runningPod, cadence: walking ? 115 : 160, speed: walking ? 1.6 : 3.3,
                    gait: walking ? .walking : .running))
        }
    }
}

/// The median of five timed runs of `body`, in seconds.
func medianSeconds(_ body: () -> Void) -> Double {
    var times: [Double] = []
    for _ in 0..<5 {
        let began = ProcessInfo.processInfo.systemUptime
        body()
        times.append(ProcessInfo.processInfo.systemUptime - began)
    }
    return times.sorted()[times.count / 2]
}

// Baseline: the least any resampler must do, sorting the samples by time and summing each
// minute's heart rate in a dictionary, with no classification or session search.
var baselineMinutes = 0
let baseline = medianSeconds {
    let sorted = samples.sorted { $0.time < $1.time }
    var sums: [Int64: (Double, Int)] = [:]
    for sample in sorted {
        guard let rate = sample.heartRate else { continue }
        let minute = Int64((sample.time.timeIntervalSince1970 / 60).rounded(.down))
        let sum = sums[minute, default: (0, 0)]
        sums[minute] = (sum.0 + rate, sum.1 + 1)
    }
    baselineMinutes = sums.count
}

let detector = ExerciseDetector(profile: try UserProfile(age: 40, restingHeartRate: 60))
var result: ActivityBatch?
let detection = medianSeconds {
    result = detector.batch(
        from: samples, source: DeviceSource(family: "bench", serial: "1"), startedAt: start, mode: .live,
        origin: nil, clock: ClockReport(hostTime: start, deviceTime: nil, method: .hostAnchored))
}
let batch = result!
print("\(days) days: \(samples.count) samples -> \(batch.minutes.count) minutes -> \(batch.sessions.count) sessions")
print(
    String(
        format: "baseline (sort + per-minute sums, %d minutes): median of 5 %.3f s, %.0f samples/s",
        baselineMinutes, baseline, Double(samples.count) / baseline))
print(
    String(
        format: "exercise detection: median of 5 %.3f s, %.0f samples/s, %.2fx the baseline's time",
        detection, Double(samples.count) / detection, detection / baseline))
