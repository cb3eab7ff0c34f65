/// Running Speed and Cadence service 0x1814: RSC Measurement 0x2A53 (notify).
///
/// Sources: Bluetooth SIG GATT XML org.bluetooth.characteristic.rsc_measurement (oesmith/gatt-xml);
/// the SIG GSS as rendered in the trouble-host docs (constant RSC_MEASUREMENT). Whether the
/// cadence counts steps or strides is not stated there: it is kept as the sensor's "per minute"
/// number.

/// One RSC Measurement notification.
///
/// Flags u8: bit 0 stride length present, bit 1 total distance present, bit 2 0 = walking /
/// 1 = running, bits 3–7 reserved. Then speed u16 (1/256 m/s), cadence u8 (1/min), stride
/// length u16 (1/100 m), total distance u32 (1/10 m).
public struct RSCMeasurement: Sendable, Equatable {
    /// Instantaneous speed as sent, 1/256 m/s.
    package var speedRaw: UInt16
    /// Instantaneous cadence, 1/min.
    package var cadencePerMinute: Int
    /// Instantaneous stride length as sent, 1/100 m.
    package var strideLengthCentimetres: UInt16?
    /// Total distance as sent, 1/10 m.
    package var totalDistanceDecimetres: UInt32?
    /// Flag bit 2: the sensor classifies the motion as running (else walking).
    package var isRunning: Bool

    package var speedMetresPerSecond: Double { Double(speedRaw) / 256 }
    package var strideLengthMetres: Double? { strideLengthCentimetres.map { Double($0) / 100 } }
    package var totalDistanceMetres: Double? { totalDistanceDecimetres.map { Double($0) / 10 } }

    package init(
        speedRaw: UInt16, cadencePerMinute: Int, strideLengthCentimetres: UInt16?, totalDistanceDecimetres: UInt32?,
        isRunning: Bool
    ) {
        self.speedRaw = speedRaw
        self.cadencePerMinute = cadencePerMinute
        self.strideLengthCentimetres = strideLengthCentimetres
        self.totalDistanceDecimetres = totalDistanceDecimetres
        self.isRunning = isRunning
    }

    public static func decode(_ value: [UInt8]) throws(BLEValueError) -> RSCMeasurement {
        var reader = GATTValueReader(value, .rscMeasurement)
        let flags = try reader.u8("flags")
        try reader.rejectReserved(UInt32(flags), mask: 0xF8)
        let speed = try reader.u16("instantaneous speed")
        let cadence = try reader.u8("instantaneous cadence")
        let stride = flags & 0x01 != 0 ? try reader.u16("instantaneous stride length") : nil
        let distance = flags & 0x02 != 0 ? try reader.u32("total distance") : nil
        try reader.expectEnd(allowed: [reader.offset])
        return RSCMeasurement(
            speedRaw: speed, cadencePerMinute: Int(cadence), strideLengthCentimetres: stride,
            totalDistanceDecimetres: distance, isRunning: flags & 0x04 != 0)
    }
}
