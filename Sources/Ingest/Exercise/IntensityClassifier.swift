import Model

/// What decided a minute's intensity.
package enum IntensityBasis: String, Sendable, Equatable {
    /// Percent of heart-rate reserve (Karvonen): resting and maximum heart rate known.
    case heartRateReserve = "heart-rate-reserve"
    /// Percent of maximum heart rate: no resting heart rate.
    case heartRateMaximum = "heart-rate-maximum"
    /// Steps per minute.
    case stepCadence = "step-cadence"
    /// The speed of a bike.
    case cyclingSpeed = "cycling-speed"
    /// Pedalling or rolling seen by a bike sensor without a speed.
    case pedalling
}

/// The class of one activity minute.
package struct MinuteAssessment: Sendable, Equatable {
    package var intensity: ActivityIntensity
    package var basis: IntensityBasis
    /// Whether the minute counts towards a session: moderate or vigorous, or moving (≥ 40
    /// steps/min, or pedalling) at any intensity.
    package var isActive: Bool

    package init(intensity: ActivityIntensity, basis: IntensityBasis, isActive: Bool) {
        self.intensity = intensity
        self.basis = basis
        self.isActive = isActive
    }
}

/// Classes activity minutes as light, moderate or vigorous.
///
/// Each measure a minute has gives a class; the minute takes the highest, since heart rate lags
/// behind effort at the start of a bout. On equal classes heart rate is
/// named as the basis.
///
/// - **Heart rate**, when the profile gives a maximum (user-set, else Tanaka 208 − 0.7 × age):
///   with a resting heart rate, percent of heart-rate reserve (Karvonen: (HR − rest) ÷
///   (max − rest)), light < 40 %, moderate 40–59 %, vigorous ≥ 60 %; without one, percent of
///   maximum, light < 64 %, moderate 64–76 %, vigorous ≥ 77 %. Bands from ACSM's Guidelines for
///   Exercise Testing and Prescription, 10th ed. (2018) and Garber et al., Med Sci Sports Exerc
///   2011;43:1334 (as tabled in Arch Phys Med Rehabil 2022, PMC8581515, Table 1); ACSM's "very
///   light" is folded into light and "near-maximal" into vigorous. Karvonen's formula: target =
///   rest + f × (max − rest).
/// - **Step cadence**: light < 100, moderate 100–129, vigorous ≥ 130 steps/min
///   (Tudor-Locke et al., CADENCE-Adults, Int J Behav Nutr Phys Act 2019;16:8: ≈ 3 and 6 METs in
///   21–40-year-olds; 100 steps/min holds at 61–85 years, IJBNPA 2023). A minute of ≥ 40
///   steps/min is active at any class, after Gadgetbridge's StepAnalysis.java.
/// - **Bike**: by speed, light < 5 mph (2.24 m/s), moderate 5–9 mph, vigorous ≥ 10 mph
///   (4.47 m/s), as in the U.S. DHHS table of activities by intensity ("Promoting Physical
///   Activity", 1999, per CDC and ACSM guidelines); pedalling without a speed is light. Any
///   pedalling or rolling minute is active. Crank cadence alone says nothing of effort.
/// - A minute with none of these (heart rate without a profile, a machine reporting only
///   energy) has no class and is inactive.
package struct IntensityClassifier: Sendable {
    package var profile: UserProfile

    package static let reserveModerate = 0.40
    package static let reserveVigorous = 0.60
    package static let maximumModerate = 0.64
    package static let maximumVigorous = 0.77
    package static let cadenceModerate = 100.0
    package static let cadenceVigorous = 130.0
    /// Steps/min at which a minute counts as moving.
    package static let cadenceActive = 40.0
    /// 5 and 10 miles per hour, in m/s.
    package static let cyclingModerate = 5 * 0.44704
    package static let cyclingVigorous = 10 * 0.44704

    package init(profile: UserProfile) {
        self.profile = profile
    }

    /// The class of `minute`; nil when nothing in it can be classed.
    package func assess(_ minute: ActivityMinute) -> MinuteAssessment? {
        var best: MinuteAssessment?
        func consider(_ candidate: MinuteAssessment) {
            guard let current = best else {
                best = candidate
                return
            }
            let active = current.isActive || candidate.isActive
            best = candidate.intensity > current.intensity ? candidate : current
            best?.isActive = active
        }
        if let rate = minute.heartRate, let (intensity, basis) = heartRateClass(rate) {
            consider(MinuteAssessment(intensity: intensity, basis: basis, isActive: intensity >= .moderate))
        }
        if let steps = minute.stepCadence {
            let intensity = Self.band(steps, Self.cadenceModerate, Self.cadenceVigorous)
            consider(
                MinuteAssessment(
                    intensity: intensity, basis: .stepCadence, isActive: steps >= Self.cadenceActive || intensity >= .moderate))
        }
        if minute.sensors.contains(.cycling), (minute.crankCadence ?? 0) > 0 || (minute.speed ?? 0) > 0 {
            if let speed = minute.speed {
                consider(
                    MinuteAssessment(
                        intensity: Self.band(speed, Self.cyclingModerate, Self.cyclingVigorous), basis: .cyclingSpeed, isActive: true))
            } else {
                consider(MinuteAssessment(intensity: .light, basis: .pedalling, isActive: true))
            }
        }
        return best
    }

    /// The class of a heart rate with this profile; nil without a maximum heart rate.
    package func heartRateClass(_ rate: Double) -> (ActivityIntensity, IntensityBasis)? {
        guard let maximum = profile.effectiveMaxHeartRate else { return nil }
        if let resting = profile.restingHeartRate.map(Double.init) {
            let reserve = (rate - resting) / (maximum - resting)
            return (Self.band(reserve, Self.reserveModerate, Self.reserveVigorous), .heartRateReserve)
        }
        return (Self.band(rate / maximum, Self.maximumModerate, Self.maximumVigorous), .heartRateMaximum)
    }

    private static func band(_ value: Double, _ moderate: Double, _ vigorous: Double) -> ActivityIntensity {
        value >= vigorous ? .vigorous : value >= moderate ? .moderate : .light
    }
}
