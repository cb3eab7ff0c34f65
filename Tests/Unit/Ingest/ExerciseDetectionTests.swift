import Foundation
import Ingest
import Model
import TestSupport
import XCTest

/// Exercise detection on generated minute streams whose right answer is known.
final class ExerciseDetectionTests: XCTestCase {
    let start = Date(timeIntervalSince1970: 1_714_545_000)  // 2024-05-01T06:30:00Z

    func at(_ minute: Int, _ second: Double = 0) -> Date { start.addingTimeInterval(Double(minute) * 60 + second) }

    func detect(_ samples: [ActivitySample], profile: UserProfile = UserProfile(), minimum: Int = 10) throws -> [ExerciseSession] {
        let detector = ExerciseDetector(profile: profile, configuration: try .init(minimumMinutes: minimum))
        return detector.sessions(in: ActivityResampler.minutes(from: samples).minutes)
    }

    // MARK: - The cases

    /// 30 minutes at 115 steps/min with no samples in minute 14: one moderate Walking session
    /// from the first minute, 30 minutes long, of which 29 active.
    func testBriskWalkWithAOneMinuteStopIsOneModerateWalkingSession() throws {
        let minutes = Array(0..<30).filter { $0 != 14 }
        let samples = ActivityStreams.pod(from: start, minutes: minutes, cadence: 115, speed: 1.6, gait: .walking)
        let resampled = ActivityResampler.minutes(from: samples)
        XCTAssertEqual(resampled.minutes.count, 29)
        XCTAssertFalse(resampled.minutes.contains { $0.start == at(14) }, "the stop minute is absent, not filled in")

        let sessions = try detect(samples)
        XCTAssertEqual(sessions.count, 1)
        let walk = try XCTUnwrap(sessions.first)
        XCTAssertEqual(walk.start, start)
        XCTAssertEqual(walk.minutes, 30)
        XCTAssertEqual(walk.duration, 1800)
        XCTAssertEqual(walk.kind, .walking)
        XCTAssertEqual(walk.intensity, .moderate)
        XCTAssertEqual(walk.minutesByIntensity, [.moderate: 29])
        XCTAssertEqual(walk.recordKey, "exercise:2024-05-01T06:30Z")
    }

    /// The same walk where the pod keeps reporting 0 steps/min while the walker waits: the stop
    /// minute exists, is light and inactive, and is bridged.
    func testAStopReportedAsZeroCadenceIsBridgedToo() throws {
        let walking = ActivityStreams.pod(from: start, minutes: Array(0..<14) + Array(15..<30), cadence: 115, speed: 1.6, gait: .walking)
        let standing = ActivityStreams.pod(from: start, minutes: [14], cadence: 0, speed: 0, gait: .walking)
        let resampled = ActivityResampler.minutes(from: walking + standing)
        XCTAssertEqual(resampled.minutes.count, 30)
        let stop = try XCTUnwrap(resampled.minutes.first { $0.start == at(14) })
        XCTAssertEqual(
            IntensityClassifier(profile: UserProfile()).assess(stop),
            MinuteAssessment(intensity: .light, basis: .stepCadence, isActive: false))

        let sessions = try detect(walking + standing)
        XCTAssertEqual(sessions.map(\.minutes), [30])
        XCTAssertEqual(sessions.map(\.intensity), [.moderate])
        XCTAssertEqual(sessions.map(\.kind), [.walking])
    }

    /// An 8-minute jog (160 steps/min) is dropped under the 10-minute default and kept as a
    /// vigorous Running session of 8 minutes with a 5-minute minimum.
    func testAnEightMinuteJogIsDroppedUnderTheTenMinuteDefault() throws {
        let jog = ActivityStreams.pod(from: start, minutes: Array(0..<8), cadence: 160, speed: 3.2, gait: .running)
        XCTAssertEqual(ActivityResampler.minutes(from: jog).minutes.count, 8)
        XCTAssertEqual(try detect(jog), [])

        let kept = try detect(jog, minimum: 5)
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(kept.first?.minutes, 8)
        XCTAssertEqual(kept.first?.kind, .running)
        XCTAssertEqual(kept.first?.intensity, .vigorous)
    }

    /// Age 40: Tanaka maximum 208 − 28 = 180 bpm. At 135 bpm, without a resting heart rate:
    /// 75 % of maximum, moderate (64–76 %). With a resting heart rate of 60: (135 − 60) ÷
    /// (180 − 60) = 62.5 % of reserve, vigorous (≥ 60 %).
    func testHeartRateWithoutRestingUsesPercentOfMaximumAndWithRestingUsesKarvonen() throws {
        let band = ActivityStreams.band(from: start, minutes: Array(0..<20), bpm: 135)
        let maximumOnly = try UserProfile(age: 40)
        XCTAssertEqual(maximumOnly.effectiveMaxHeartRate, 180)
        XCTAssertEqual(maximumOnly.heartRateMethod, .maximum)
        let withResting = try UserProfile(age: 40, restingHeartRate: 60)
        XCTAssertEqual(withResting.heartRateMethod, .reserve)

        let minute = try XCTUnwrap(ActivityResampler.minutes(from: band).minutes.first)
        XCTAssertEqual(minute.heartRate, 135)
        XCTAssertEqual(
            IntensityClassifier(profile: maximumOnly).assess(minute),
            MinuteAssessment(intensity: .moderate, basis: .heartRateMaximum, isActive: true))
        XCTAssertEqual(
            IntensityClassifier(profile: withResting).assess(minute),
            MinuteAssessment(intensity: .vigorous, basis: .heartRateReserve, isActive: true))

        let byMaximum = try detect(band, profile: maximumOnly)
        XCTAssertEqual(byMaximum.map(\.intensity), [.moderate])
        XCTAssertEqual(byMaximum.map(\.minutes), [20])
        XCTAssertEqual(byMaximum.map(\.kind), [.activity], "heart rate alone does not say what the activity was")
        XCTAssertEqual(try detect(band, profile: withResting).map(\.intensity), [.vigorous])
    }

    /// At 110 bpm (age 40, maximum 180): 61 % of maximum is light, so no session; with a resting
    /// heart rate of 60, (110 − 60) ÷ 120 = 41.7 % of reserve is moderate: one session.
    func testKarvonenFindsASessionThatPercentOfMaximumCallsLight() throws {
        let band = ActivityStreams.band(from: start, minutes: Array(0..<25), bpm: 110)
        XCTAssertEqual(try detect(band, profile: UserProfile(age: 40)), [])
        let sessions = try detect(band, profile: UserProfile(age: 40, restingHeartRate: 60))
        XCTAssertEqual(sessions.map(\.minutes), [25])
        XCTAssertEqual(sessions.map(\.intensity), [.moderate])
    }

    /// A maximum the user set wins over the estimate: at 150 bpm, 150 ÷ 200 = 75 % is moderate,
    /// where the Tanaka maximum for age 40 (180) would make it 83 %, vigorous.
    func testAUserSetMaximumOverridesTheTanakaEstimate() throws {
        let minute = ActivityMinute(start: start, heartRate: 150, sensors: [.heartRateBand], sampleCount: 60)
        XCTAssertEqual(IntensityClassifier(profile: try UserProfile(age: 40)).assess(minute)?.intensity, .vigorous)
        let set = try UserProfile(age: 40, maxHeartRate: 200)
        XCTAssertEqual(set.effectiveMaxHeartRate, 200)
        XCTAssertEqual(IntensityClassifier(profile: set).assess(minute)?.intensity, .moderate)
    }

    /// Percent edges, exactly on the published thresholds.
    func testHeartRateBandEdges() throws {
        let maximum = IntensityClassifier(profile: try UserProfile(maxHeartRate: 200))
        // 64 % of 200 = 128, 77 % = 154.
        XCTAssertEqual(maximum.heartRateClass(127)?.0, .light)
        XCTAssertEqual(maximum.heartRateClass(128)?.0, .moderate)
        XCTAssertEqual(maximum.heartRateClass(153)?.0, .moderate)
        XCTAssertEqual(maximum.heartRateClass(154)?.0, .vigorous)
        let reserve = IntensityClassifier(profile: try UserProfile(maxHeartRate: 180, restingHeartRate: 60))
        // 40 % of reserve: 60 + 48 = 108; 60 %: 60 + 72 = 132.
        XCTAssertEqual(reserve.heartRateClass(107)?.0, .light)
        XCTAssertEqual(reserve.heartRateClass(108)?.0, .moderate)
        XCTAssertEqual(reserve.heartRateClass(131)?.0, .moderate)
        XCTAssertEqual(reserve.heartRateClass(132)?.0, .vigorous)
        XCTAssertNil(IntensityClassifier(profile: UserProfile()).heartRateClass(150), "no age, no maximum: no class")
    }

    // MARK: - Cadence

    /// Without heart rate, steps/min decide: < 100 light, 100–129 moderate, ≥ 130 vigorous;
    /// 40 steps/min and more count as moving.
    func testCadenceOnlyClasses() {
        let classifier = IntensityClassifier(profile: UserProfile())
        func assess(_ steps: Double) -> MinuteAssessment? {
            classifier.assess(ActivityMinute(start: start, stepCadence: steps, sensors: [.runningPod], sampleCount: 30))
        }
        XCTAssertEqual(assess(39), MinuteAssessment(intensity: .light, basis: .stepCadence, isActive: false))
        XCTAssertEqual(assess(40), MinuteAssessment(intensity: .light, basis: .stepCadence, isActive: true))
        XCTAssertEqual(assess(99.9)?.intensity, .light)
        XCTAssertEqual(assess(100), MinuteAssessment(intensity: .moderate, basis: .stepCadence, isActive: true))
        XCTAssertEqual(assess(129.9)?.intensity, .moderate)
        XCTAssertEqual(assess(130), MinuteAssessment(intensity: .vigorous, basis: .stepCadence, isActive: true))
    }

    /// A 20-minute stroll at 80 steps/min is a light Walking session; heart rate with no profile
    /// to read it by is left aside (and the batch says so).
    func testCadenceDecidesWhenTheProfileCannotReadHeartRate() throws {
        let stroll =
            ActivityStreams.pod(from: start, minutes: Array(0..<20), cadence: 80, speed: 1.1, gait: .walking)
            + ActivityStreams.band(from: start, minutes: Array(0..<20), bpm: 140)
        let batch = ExerciseDetector().batch(
            from: stroll, source: DeviceSource(family: "ble-rsc", serial: "C0:FF:EE:00:00:01"), startedAt: at(30),
            mode: .live, origin: nil, clock: ClockReport(hostTime: at(30), deviceTime: nil, method: .hostAnchored))
        XCTAssertEqual(batch.sessions.map(\.kind), [.walking])
        XCTAssertEqual(batch.sessions.map(\.intensity), [.light])
        XCTAssertEqual(batch.sessions.map(\.minutes), [20])
        XCTAssertEqual(batch.samplesRead, 20 * 30 + 20 * 60)
        XCTAssertEqual(batch.minutes.count, 20)
        XCTAssertEqual(batch.minutes.first?.sensors, [.runningPod, .heartRateBand])
        XCTAssertEqual(batch.notes, ["heart rate was not used for intensity: the profile has no age or maximum heart rate"])
    }

    /// Heart rate lags at the start of a bout: a minute takes the higher of its heart-rate and
    /// cadence classes.
    func testTheHigherOfHeartRateAndCadenceClassWins() throws {
        let classifier = IntensityClassifier(profile: try UserProfile(age: 40))
        let minute = ActivityMinute(start: start, heartRate: 100, stepCadence: 120, sensors: [.heartRateBand, .runningPod], sampleCount: 90)
        XCTAssertEqual(classifier.assess(minute), MinuteAssessment(intensity: .moderate, basis: .stepCadence, isActive: true))
        var fast = minute
        fast.heartRate = 150
        XCTAssertEqual(classifier.assess(fast), MinuteAssessment(intensity: .vigorous, basis: .heartRateMaximum, isActive: true))
    }

    /// A pod's running flag names the session Running below 140 steps/min.
    func testTheRunningFlagNamesRunning() throws {
        let run = ActivityStreams.pod(from: start, minutes: Array(0..<12), cadence: 132, speed: 2.8, gait: .running)
        XCTAssertEqual(try detect(run).map(\.kind), [.running])
        let walk = ActivityStreams.pod(from: start, minutes: Array(0..<12), cadence: 132, speed: 2.0, gait: .walking)
        XCTAssertEqual(try detect(walk).map(\.kind), [.walking])
    }

    // MARK: - Bikes

    /// 15 minutes at 80 rpm and 5 m/s (above 10 mph): a vigorous Cycling session; at 3 m/s
    /// (between 5 and 10 mph) moderate; pedalling without a speed counts as light.
    func testBikeSessions() throws {
        let fast = ActivityStreams.bike(from: start, minutes: Array(0..<15), rpm: 80, speed: 5)
        XCTAssertEqual(try detect(fast).map { "\($0.kind.rawValue) \($0.intensity.rawValue) \($0.minutes)" }, ["Cycling vigorous 15"])
        let easy = ActivityStreams.bike(from: start, minutes: Array(0..<15), rpm: 70, speed: 3)
        XCTAssertEqual(try detect(easy).map(\.intensity), [.moderate])
        let crankOnly = ActivityStreams.times(from: start, minutes: Array(0..<15), every: 2).map {
            ActivitySample(time: $0, sensor: .cycling, cadence: 75)
        }
        XCTAssertEqual(try detect(crankOnly).map { "\($0.kind.rawValue) \($0.intensity.rawValue)" }, ["Cycling light"])
        // With a heart-rate band on: the higher class.
        let withBand = crankOnly + ActivityStreams.band(from: start, minutes: Array(0..<15), bpm: 130)
        XCTAssertEqual(try detect(withBand, profile: UserProfile(age: 40)).map(\.intensity), [.moderate])
    }

    // MARK: - Joining and splitting

    /// A gap of three minutes (more than the default two) splits a walk into two sessions.
    func testAGapLongerThanTheLimitSplits() throws {
        let minutes = Array(0..<12) + Array(15..<27)
        let walk = ActivityStreams.pod(from: start, minutes: minutes, cadence: 110, speed: 1.5, gait: .walking)
        let sessions = try detect(walk)
        XCTAssertEqual(sessions.map(\.start), [at(0), at(15)])
        XCTAssertEqual(sessions.map(\.minutes), [12, 12])
        XCTAssertEqual(sessions.map(\.recordKey), ["exercise:2024-05-01T06:30Z", "exercise:2024-05-01T06:45Z"])

        let longerGaps = ExerciseDetector(configuration: try .init(maximumGapMinutes: 3))
        XCTAssertEqual(longerGaps.sessions(in: ActivityResampler.minutes(from: walk).minutes).map(\.minutes), [27])
    }

    /// 5 active, 2 off, 1 active, 2 off, 5 active: 4 of 15 minutes inactive is over 20 %, so the
    /// span splits at its first longest gap; the rest (1 + 2 + 5 = 8 minutes, 2 inactive) is still
    /// over 20 % and splits again. With a 5-minute minimum two sessions of 5 minutes remain.
    func testTooManyInactiveMinutesSplitAtTheLongestGap() throws {
        let minutes = Array(0..<5) + [7] + Array(10..<15)
        let walk = ActivityStreams.pod(from: start, minutes: minutes, cadence: 110, speed: 1.5, gait: .walking)
        let sessions = try detect(walk, minimum: 5)
        XCTAssertEqual(sessions.map(\.start), [at(0), at(10)])
        XCTAssertEqual(sessions.map(\.minutes), [5, 5])
        XCTAssertEqual(try detect(walk, minimum: 1).map(\.minutes), [5, 1, 5])
    }

    /// Ten moderate and ten vigorous minutes: the tie goes to the higher class.
    func testAnIntensityTieGoesToTheHigherClass() throws {
        let samples =
            ActivityStreams.pod(from: start, minutes: Array(0..<10), cadence: 115, speed: 1.6, gait: .walking)
            + ActivityStreams.pod(from: start, minutes: Array(10..<20), cadence: 135, speed: 1.9, gait: .walking)
        let session = try XCTUnwrap(try detect(samples).first)
        XCTAssertEqual(session.minutesByIntensity, [.moderate: 10, .vigorous: 10])
        XCTAssertEqual(session.intensity, .vigorous)
        XCTAssertEqual(session.kind, .walking, "median cadence 125 steps/min")
    }

    // MARK: - Resampling

    /// Means of the usable values of each UTC minute; heart rate without contact or outside
    /// 30–220 bpm is counted and left out; running totals become per-minute increases, a total
    /// that falls having restarted from zero; input order does not matter.
    func testResamplingMeansTotalsAndLeftOutValues() throws {
        let samples = [
            ActivitySample(time: at(1, 10), sensor: .runningPod, cadence: 100, speed: 1.0, totalDistance: 150, gait: .walking),
            ActivitySample(time: at(0, 0), sensor: .heartRateBand, heartRate: 100, skinContact: true, totalEnergy: 10),
            ActivitySample(time: at(0, 20), sensor: .heartRateBand, heartRate: 110, totalEnergy: 12),
            ActivitySample(time: at(0, 40), sensor: .heartRateBand, heartRate: 120, skinContact: true),
            ActivitySample(time: at(0, 50), sensor: .heartRateBand, heartRate: 250, skinContact: true),
            ActivitySample(time: at(0, 59.9), sensor: .heartRateBand, heartRate: 90, skinContact: false),
            ActivitySample(time: at(0, 30), sensor: .runningPod, cadence: 90, speed: 1.2, totalDistance: 100, gait: .running),
            ActivitySample(time: at(1, 40), sensor: .runningPod, cadence: 110, speed: 1.4, totalDistance: 20, gait: .walking),
            ActivitySample(time: at(1, 50), sensor: .runningPod, cadence: .nan, totalDistance: 50),
            ActivitySample(time: at(2, 0), sensor: .heartRateBand, heartRate: 20),
        ]
        let resampled = ActivityResampler.minutes(from: samples)
        XCTAssertEqual(
            resampled.minutes.map { minute in
                var means = minute
                means.tally = nil
                return means
            },
            [
                ActivityMinute(
                    start: at(0), heartRate: 110, stepCadence: 90, speed: 1.2, energy: 2, gait: .running,
                    sensors: [.heartRateBand, .runningPod], sampleCount: 4),
                ActivityMinute(
                    start: at(1), stepCadence: 105, speed: 1.2, distance: 50 + 20 + 30, gait: .walking,
                    sensors: [.runningPod], sampleCount: 3),
            ])
        // The sums behind the means, and each sensor's totals at both ends of the minute.
        let tally = try XCTUnwrap(resampled.minutes.first?.tally)
        XCTAssertEqual(tally.heartRate, MinuteTally.Sum(total: 330, count: 3))
        XCTAssertEqual([tally.firstSample, tally.lastSample], [at(0, 0), at(0, 40)])
        XCTAssertEqual(tally.totals[.heartRateBand]?.energy, MinuteTally.RunningTotal(first: 10, last: 12, firstIsBase: true))
        XCTAssertEqual(tally.totals[.runningPod]?.distance, MinuteTally.RunningTotal(first: 100, last: 100, firstIsBase: true))
        XCTAssertEqual(resampled.minutes.last?.tally?.totals[.runningPod]?.distance?.firstIsBase, false)
        XCTAssertEqual(
            resampled.events,
            [
                ImportEvent(name: "heart-rate-out-of-range", count: 2),
                ImportEvent(name: "heart-rate-without-contact", count: 1),
                ImportEvent(name: "invalid-cadence", count: 1),
            ])
        XCTAssertEqual(ActivityResampler.minutes(from: samples.reversed()).minutes.map(\.start), [at(0), at(1)])
    }

    /// The same samples in another order give the same sessions and keys: a re-import finds them.
    func testDetectionIsDeterministic() throws {
        let samples =
            ActivityStreams.pod(from: start, minutes: Array(0..<30), cadence: 118, speed: 1.7, gait: .walking)
            + ActivityStreams.band(from: start, minutes: Array(0..<30), bpm: 120)
        var shuffler = SplitMix(seed: 42)
        let shuffled = samples.shuffled(using: &shuffler)
        let profile = try UserProfile(age: 50, restingHeartRate: 65)
        XCTAssertEqual(try detect(shuffled, profile: profile), try detect(samples, profile: profile))
        XCTAssertEqual(try detect(samples, profile: profile).map(\.recordKey), ["exercise:2024-05-01T06:30Z"])
    }

    /// Instants no store can hold are counted and left out, never a crash.
    func testSamplesAndMinutesOutsideYears1To9999AreLeftOut() throws {
        let walk = ActivityStreams.pod(from: start, minutes: Array(0..<12), cadence: 115, speed: 1.6, gait: .walking)
        let broken = [
            ActivitySample(time: Date(timeIntervalSince1970: .infinity), sensor: .runningPod, cadence: 115),
            ActivitySample(time: Date(timeIntervalSince1970: .nan), sensor: .runningPod, cadence: 115),
            ActivitySample(time: Date(timeIntervalSince1970: 1e15), sensor: .heartRateBand, heartRate: 90),
        ]
        let resampled = ActivityResampler.minutes(from: broken + walk)
        XCTAssertEqual(resampled.minutes.count, 12)
        XCTAssertEqual(resampled.events, [ImportEvent(name: "invalid-time", count: 3)])

        let farOff = ActivityMinute(start: Date(timeIntervalSince1970: -1e15), stepCadence: 150, sensors: [.runningPod], sampleCount: 1)
        var unknown = farOff
        unknown.start = Date(timeIntervalSince1970: .nan)
        let mixed = resampled.minutes[..<6] + [farOff, unknown] + resampled.minutes[6...]
        XCTAssertEqual(ExerciseDetector().sessions(in: Array(mixed)).map(\.minutes), [12])
        XCTAssertEqual(ExerciseSession.recordKey(start: Date(timeIntervalSince1970: .infinity)), "exercise:out-of-range")
    }

    func testRecordKeyIsTheUTCStartMinute() {
        XCTAssertEqual(ExerciseSession.recordKey(start: Date(timeIntervalSince1970: 1_714_545_059.9)), "exercise:2024-05-01T06:30Z")
        XCTAssertEqual(ExerciseSession.recordKey(start: Date(timeIntervalSince1970: -30)), "exercise:1969-12-31T23:59Z")
    }

    // MARK: - Refused values

    func testConfigurationAndProfileRefuseImpossibleValues() {
        XCTAssertThrowsError(try ExerciseDetector.Configuration(minimumMinutes: 0)) { error in
            XCTAssertEqual("\(error)", "invalid exercise detection setting: the minimum session length must be at least 1 minute (got 0)")
        }
        XCTAssertThrowsError(try ExerciseDetector.Configuration(maximumInactiveShare: 1.5))
        XCTAssertThrowsError(try ExerciseDetector.Configuration(maximumGapMinutes: -1))
        XCTAssertEqual(try ExerciseDetector.Configuration(), .standard)

        XCTAssertThrowsError(try UserProfile(age: 0)) { error in
            XCTAssertEqual("\(error)", "the age 0 years is not within 1–120 years")
        }
        XCTAssertThrowsError(try UserProfile(maxHeartRate: 300))
        XCTAssertThrowsError(try UserProfile(restingHeartRate: 10))
        // Age 90: Tanaka 145 bpm; a resting heart rate of 150 is refused.
        XCTAssertThrowsError(try UserProfile(age: 90, restingHeartRate: 150)) { error in
            XCTAssertEqual(error as? ProfileError, .restingNotBelowMaximum(resting: 150, maximum: 145))
            XCTAssertEqual("\(error)", "the resting heart rate 150 bpm must be below the maximum heart rate (145 bpm); check both values")
        }
    }
}
