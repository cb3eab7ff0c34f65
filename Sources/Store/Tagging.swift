import Model

extension GlucoseThresholds {
    /// The tag the store gives a value: a reading reported in mmol/L is classed as its meter
    /// showed it (to one decimal of mmol/L), any other by its whole mg/dL.
    func storeTag(mgdl: Double, unit: GlucoseUnit) -> GlucoseTag {
        switch unit {
        case .milligramsPerDeciliter: tag(mgdl: mgdl)
        case .millimolesPerLiter: tag(mmolPerLiter: mgdl / GlucoseUnit.mgdlPerMmol)
        }
    }
}
