import Drivers
import Foundation
import Transport

/// A blood-glucose meter on the standard Glucose service (0x1808, Bluetooth SIG Glucose Service
/// 1.0): its stored results, each a Glucose Measurement notification and for some a Glucose
/// Measurement Context, served through the Record Access Control Point (`RACPServer`), keyed by
/// sequence number. All bytes are made here (synthetic data, no device was involved).
///
/// The demo meter's twelve results lie on the consensus edges (54, 70, 180, 250 mg/dL; 3.9 and
/// 13.9 mmol/L), in both units the service carries (kg/L and mol/L SFLOATs), on the meter's wall
/// clock around Europe's spring DST change (2024-03-31 02:00 CET → 03:00 CEST) and across local
/// midnights; two carry an exercise context, one is a control-solution test, one is NaN and one
/// is above the meter's range.
package enum GlucoseMeterDemo {
    package static let peer = BLEPeer(address: BluetoothAddress("C0:FF:EE:00:00:0D")!, addressType: .random, name: "SimMeter edges")
    package static let manufacturer = "glucobridge simulator"
    package static let model = "Glucose meter"
    package static let serial = "SIM-BGM-0001"

    /// Flags of a Glucose Measurement (GSS, Glucose Measurement 0x2A18): bit 0 time offset
    /// present, bit 1 concentration and type/sample location present, bit 2 concentration in mol/L
    /// (else kg/L), bit 3 sensor status annunciation present, bit 4 context information follows.
    package static let timeOffsetPresent: UInt8 = 0x01
    package static let concentrationPresent: UInt8 = 0x02
    package static let molesPerLitre: UInt8 = 0x04
    package static let sensorStatusPresent: UInt8 = 0x08
    package static let contextFollows: UInt8 = 0x10

    /// A Glucose Measurement value: flags, sequence number (u16), base time (Date Time), the time
    /// offset in minutes (s16) when flagged, the SFLOAT concentration and its type (low nibble) and
    /// sample location (high nibble) when flagged, the sensor status (u16) when given.
    package static func measurement(
        flags: UInt8, sequence: UInt16, baseTime: GATTDateTime, offsetMinutes: Int16 = 0, concentration: UInt16 = 0,
        sample: UInt8 = 0x11, status: UInt16? = nil
    ) -> [UInt8] {
        var bytes = [flags | (status == nil ? 0 : sensorStatusPresent), UInt8(sequence & 0xFF), UInt8(sequence >> 8)] + baseTime.bytes
        if flags & timeOffsetPresent != 0 {
            let offset = UInt16(bitPattern: offsetMinutes)
            bytes += [UInt8(offset & 0xFF), UInt8(offset >> 8)]
        }
        if flags & concentrationPresent != 0 { bytes += [UInt8(concentration & 0xFF), UInt8(concentration >> 8), sample] }
        if let status { bytes += [UInt8(status & 0xFF), UInt8(status >> 8)] }
        return bytes
    }

    /// A Glucose Measurement Context value with only its exercise (GSS, Glucose Measurement
    /// Context 0x2A34: flags bit 3, exercise duration u16 seconds, intensity u8 percent).
    package static func exerciseContext(sequence: UInt16, seconds: UInt16, intensityPercent: UInt8) -> [UInt8] {
        [0x08, UInt8(sequence & 0xFF), UInt8(sequence >> 8), UInt8(seconds & 0xFF), UInt8(seconds >> 8), intensityPercent]
    }

    /// An SFLOAT (IEEE 11073-20601: 4-bit exponent, 12-bit mantissa) of `mantissa` × 10^`exponent`.
    package static func sfloat(_ mantissa: Int, exponent: Int) -> UInt16 {
        precondition((-2048...2047).contains(mantissa) && (-8...7).contains(exponent), "an SFLOAT holds a 12-bit mantissa and a 4-bit exponent")
        return UInt16(UInt8(bitPattern: Int8(exponent)) & 0x0F) << 12 | UInt16(UInt16(bitPattern: Int16(mantissa)) & 0x0FFF)
    }

    /// One stored result of the demo meter: when on its clock, what it measured.
    package struct Result: Sendable {
        package var sequence: UInt16
        package var time: GATTDateTime
        package var offsetMinutes: Int16
        /// The SFLOAT concentration, as the meter sends it (0x07FF: NaN).
        package var concentration: UInt16
        /// In mol/L (mmol/L on the meter), else in kg/L (mg/dL on the meter).
        package var molar = false
        package var sample: UInt8
        package var status: UInt16?
        /// The exercise context, when the meter recorded one: seconds, intensity %.
        package var exercise: (seconds: UInt16, intensity: UInt8)?
    }

    /// mg/dL are 10⁻⁵ kg/L; mmol/L are 10⁻³ mol/L.
    static func mgdl(_ tenths: Int) -> UInt16 { sfloat(tenths, exponent: -6) }
    static func mmol(_ tenths: Int) -> UInt16 { sfloat(tenths, exponent: -4) }

    static func at(_ day: Int, _ hours: Int, _ minutes: Int, month: Int = 3) -> GATTDateTime {
        GATTDateTime(year: 2024, month: month, day: day, hours: hours, minutes: minutes, seconds: 0)
    }

    /// The demo meter's results, oldest first.
    package static let results: [Result] = [
        Result(sequence: 1, time: at(30, 21, 50), offsetMinutes: 0, concentration: sfloat(53, exponent: -5), sample: 0x11),
        Result(sequence: 2, time: at(30, 22, 40), offsetMinutes: 0, concentration: sfloat(54, exponent: -5), sample: 0x11),
        Result(sequence: 3, time: at(30, 23, 55), offsetMinutes: 0, concentration: mgdl(699), sample: 0x11),
        // Local 00:30 on the 31st is 23:30Z on the 30th; 45 minutes of exercise at 65 % end here.
        Result(sequence: 4, time: at(31, 0, 30), offsetMinutes: 0, concentration: sfloat(70, exponent: -5), sample: 0x11, exercise: (2700, 65)),
        // A control-solution test (type 10, location 4): counted, not a reading.
        Result(sequence: 5, time: at(31, 1, 45), offsetMinutes: 0, concentration: sfloat(100, exponent: -5), sample: 0x4A),
        // After the change to CEST (UTC+2).
        Result(sequence: 6, time: at(31, 3, 15), offsetMinutes: 0, concentration: mgdl(1801), sample: 0x11),
        // 13.9 mmol/L is the 250 mg/dL edge as meters show it: level-1, not level-2.
        Result(sequence: 7, time: at(31, 7, 30), offsetMinutes: 5, concentration: mmol(139), molar: true, sample: 0x11),
        Result(sequence: 8, time: at(31, 12, 5), offsetMinutes: 0, concentration: sfloat(250, exponent: -5), sample: 0x11),
        Result(sequence: 9, time: at(31, 18, 20), offsetMinutes: 0, concentration: sfloat(251, exponent: -5), sample: 0x11),
        // 600 mg/dL with "result above the device's range" (sensor status bit 5): HI.
        Result(
            sequence: 10, time: at(31, 22, 10), offsetMinutes: -3, concentration: sfloat(600, exponent: -5), sample: 0x11, status: 0x0020,
            exercise: (1800, 35)),
        // NaN (SFLOAT 0x07FF): counted, not a reading.
        Result(sequence: 11, time: at(1, 6, 40, month: 4), offsetMinutes: 0, concentration: 0x07FF, sample: 0x11),
        Result(sequence: 12, time: at(1, 7, 15, month: 4), offsetMinutes: 0, concentration: mmol(38), molar: true, sample: 0x11),
    ]

    /// The notifications of `result`: its measurement, and its context when it has one.
    package static func values(of result: Result) -> [SimulatedPeripheral.Emission] {
        var flags = timeOffsetPresent | concentrationPresent
        if result.molar { flags |= molesPerLitre }
        if result.exercise != nil { flags |= contextFollows }
        var values = [
            SimulatedPeripheral.Emission(
                0x2A18,
                measurement(
                    flags: flags, sequence: result.sequence, baseTime: result.time, offsetMinutes: result.offsetMinutes,
                    concentration: result.concentration, sample: result.sample, status: result.status))
        ]
        if let exercise = result.exercise {
            values.append(.init(0x2A34, exerciseContext(sequence: result.sequence, seconds: exercise.seconds, intensityPercent: exercise.intensity)))
        }
        return values
    }

    /// The demo meter's record store.
    package static func server() -> RACPServer {
        RACPServer(results.map { ($0.sequence, values(of: $0)) })
    }

    /// The Device Information of the demo meter (manufacturer, model and serial number strings).
    package static let deviceInformation: [SimulatedPeripheral.Characteristic] = [
        .init(0x2A29, .read, value: Array(manufacturer.utf8)), .init(0x2A24, .read, value: Array(model.utf8)),
        .init(0x2A25, .read, value: Array(serial.utf8)),
    ]

    /// A meter serving `server`'s records: Generic Access with `peer`'s name when it has one,
    /// Device Information, and the Glucose service — Glucose Measurement and its Context (notify),
    /// Glucose Feature (read: none of the optional features) and the RACP (write, indicate).
    package static func meter(
        server: RACPServer = server(), peer: BLEPeer = peer, deviceInformation: [SimulatedPeripheral.Characteristic] = deviceInformation,
        clock: SimulatedClock
    ) -> SimulatedPeripheral {
        var services: [SimulatedPeripheral.Service] = []
        if let name = peer.name { services.append(.init(0x1800, [.init(0x2A00, .read, value: Array(name.utf8))])) }
        services.append(.init(0x180A, deviceInformation))
        services.append(
            .init(
                0x1808,
                [
                    .init(0x2A18, .notify), .init(0x2A34, .notify), .init(0x2A51, .read, value: [0x00, 0x00]), .init(0x2A52, [.write, .indicate]),
                ]))
        let peripheral = SimulatedPeripheral(peer: peer, services: services, clock: clock)
        server.serve(on: peripheral)
        return peripheral
    }
}
