/// Sample type and sample location as the CGM Feature (0x2AA8) and the Glucose Measurement
/// (0x2A18) carry them: one byte, type in the low nibble, location in the high nibble.
///
/// Source: Bluetooth SIG GATT XML cgm_feature.xml (note 2: type = least significant nibble) and
/// glucose_measurement.xml (https://github.com/oesmith/gatt-xml).
package struct GlucoseSample: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Low nibble: 1 capillary whole blood, 2 capillary plasma, 3 venous whole blood, 4 venous
    /// plasma, 5 arterial whole blood, 6 arterial plasma, 7 undetermined whole blood, 8 undetermined
    /// plasma, 9 interstitial fluid, 10 control solution; others reserved.
    package var type: UInt8
    /// High nibble: 1 finger, 2 alternate site test, 3 earlobe, 4 control solution, 5 subcutaneous
    /// tissue, 15 not available; others reserved.
    package var location: UInt8

    package init(type: UInt8, location: UInt8) {
        self.type = type
        self.location = location
    }

    /// Splits the type/location byte.
    package init(byte: UInt8) {
        self.init(type: byte & 0x0F, location: byte >> 4)
    }

    package var typeName: String {
        switch type {
        case 1: "capillary whole blood"
        case 2: "capillary plasma"
        case 3: "venous whole blood"
        case 4: "venous plasma"
        case 5: "arterial whole blood"
        case 6: "arterial plasma"
        case 7: "undetermined whole blood"
        case 8: "undetermined plasma"
        case 9: "interstitial fluid"
        case 10: "control solution"
        default: "reserved type \(type)"
        }
    }

    package var locationName: String {
        switch location {
        case 1: "finger"
        case 2: "alternate site test"
        case 3: "earlobe"
        case 4: "control solution"
        case 5: "subcutaneous tissue"
        case 15: "not available"
        default: "reserved location \(location)"
        }
    }

    /// A control-solution test is not a reading of the person.
    package var isControlSolution: Bool { type == 10 || location == 4 }

    package var description: String { "\(typeName), \(locationName)" }
}
