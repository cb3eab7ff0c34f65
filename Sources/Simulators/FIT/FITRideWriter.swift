import Checksums
import Drivers
import Foundation

/// A long bike ride as an Edge would write it: a FIT activity file (FIT protocol document,
/// developer.garmin.com/fit/protocol/; field numbers from the FIT profile) with one `record` a
/// second, a `lap` an hour, the `session` and the `activity` with its `local_timestamp`. The
/// values follow the ride's second, so the same arguments give the same bytes. Eight hours make
/// about 1 MB.
package struct FITRideWriter {
    package var start: Date
    package var seconds: Int
    /// The watch's offset from UTC, written as `local_timestamp − timestamp`.
    package var zoneOffset: Int
    package var serial: UInt32 = 3_932_942_223
    /// Garmin's product number of the Edge 820 (FIT profile, `garmin_product`).
    package var product: UInt16 = 2530

    package init(start: Date, hours: Int, zoneOffset: Int = 7200) {
        self.start = start
        self.seconds = hours * 3600
        self.zoneOffset = zoneOffset
    }

    /// FIT counts seconds from 1989-12-31T00:00:00Z.
    static let epoch: TimeInterval = 631_065_600

    /// Base types (FIT protocol document, "Base Type Definitions").
    enum Base {
        static let enumeration: UInt8 = 0x00
        static let sint8: UInt8 = 0x01
        static let uint8: UInt8 = 0x02
        static let sint16: UInt8 = 0x83
        static let uint16: UInt8 = 0x84
        static let sint32: UInt8 = 0x85
        static let uint32: UInt8 = 0x86
        static let uint32z: UInt8 = 0x8C
    }

    /// One second of the ride: heart rate (bpm), cadence (rpm), speed (mm/s), power (W).
    func sample(_ second: Int) -> (heartRate: UInt8, cadence: UInt8, speed: UInt32, power: UInt16) {
        let minute = second / 60
        let heartRate = 110 + (minute % 50) + (second % 7)
        let cadence = 78 + (second % 17)
        let speed = 6_500 + (minute % 40) * 60 + (second % 11) * 25
        let power = 150 + (minute % 60) * 2 + second % 13
        return (UInt8(heartRate), UInt8(cadence), UInt32(speed), UInt16(power))
    }

    /// The file's bytes.
    package func bytes() -> [UInt8] {
        var records: [UInt8] = []
        let first = UInt32(start.timeIntervalSince1970 - Self.epoch)
        func define(_ local: UInt8, _ global: UInt16, _ fields: [(UInt8, UInt8, UInt8)]) {
            records += [0x40 | local, 0, 0, UInt8(global & 0xFF), UInt8(global >> 8), UInt8(fields.count)]
            for field in fields { records += [field.0, field.1, field.2] }
        }
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { records += $0 } }

        define(
            0, FITProfile.Message.fileID,
            [(0, 1, Base.enumeration), (1, 2, Base.uint16), (2, 2, Base.uint16), (3, 4, Base.uint32z), (4, 4, Base.uint32)])
        records.append(0)
        put(UInt8(FITProfile.FileType.activity))
        put(UInt16(1))
        put(product)
        put(serial)
        put(first)

        // record: timestamp, position_lat, position_long, altitude, heart_rate, cadence, distance,
        // speed, power, grade, temperature, enhanced_speed, enhanced_altitude.
        define(
            1, FITProfile.Message.record,
            [
                (253, 4, Base.uint32), (0, 4, Base.sint32), (1, 4, Base.sint32), (2, 2, Base.uint16), (3, 1, Base.uint8), (4, 1, Base.uint8),
                (5, 4, Base.uint32), (6, 2, Base.uint16), (7, 2, Base.uint16), (9, 2, Base.sint16), (13, 1, Base.sint8), (73, 4, Base.uint32),
                (78, 4, Base.uint32),
            ])
        // lap and session: timestamp, start_time, total_elapsed_time, total_timer_time,
        // total_distance, then the lap's avg and max heart rate and sport, the session's sport,
        // sub_sport, total_calories, avg and max heart rate.
        define(
            2, FITProfile.Message.lap,
            [
                (253, 4, Base.uint32), (2, 4, Base.uint32), (7, 4, Base.uint32), (8, 4, Base.uint32), (9, 4, Base.uint32), (15, 1, Base.uint8),
                (16, 1, Base.uint8), (25, 1, Base.enumeration),
            ])
        var distance: UInt64 = 0  // 1/1000 m
        var lapStart = 0
        var lapDistance: UInt64 = 0
        var lapHeart: (sum: Int, max: UInt8) = (0, 0)
        var rideHeart: (sum: Int, max: UInt8) = (0, 0)
        var energy = 0.0  // J
        func lap(_ end: Int) {
            let elapsed = UInt32((end - lapStart) * 1000)
            records.append(2)
            put(first + UInt32(end))
            put(first + UInt32(lapStart))
            put(elapsed)
            put(elapsed)
            put(UInt32((distance - lapDistance) / 10))
            put(UInt8(lapHeart.sum / max(1, end - lapStart)))
            put(lapHeart.max)
            put(UInt8(2))
            lapStart = end
            lapDistance = distance
            lapHeart = (0, 0)
        }
        for second in 0..<seconds {
            let now = sample(second)
            distance += UInt64(now.speed)
            energy += Double(now.power)
            lapHeart = (lapHeart.sum + Int(now.heartRate), max(lapHeart.max, now.heartRate))
            rideHeart = (rideHeart.sum + Int(now.heartRate), max(rideHeart.max, now.heartRate))
            records.append(1)
            put(first + UInt32(second))
            put(Int32(567_000_000 + second * 40))  // semicircles
            put(Int32(100_000_000 - second * 35))
            let altitude = UInt32((500 + 120 + (second / 30) % 80) * 5)  // scale 5, offset 500
            put(UInt16(altitude))
            put(now.heartRate)
            put(now.cadence)
            put(UInt32(distance / 10))  // scale 100
            put(UInt16(now.speed))  // scale 1000
            put(now.power)
            put(Int16((second / 60) % 9 - 4) * 100)  // scale 100, %
            put(Int8(18 + (second / 600) % 6))
            put(now.speed)
            put(altitude)
            if (second + 1) % 3600 == 0 { lap(second + 1) }
        }
        if lapStart < seconds { lap(seconds) }
        define(
            3, FITProfile.Message.session,
            [
                (253, 4, Base.uint32), (2, 4, Base.uint32), (7, 4, Base.uint32), (8, 4, Base.uint32), (9, 4, Base.uint32), (5, 1, Base.enumeration),
                (6, 1, Base.enumeration), (11, 2, Base.uint16), (16, 1, Base.uint8), (17, 1, Base.uint8),
            ])
        let end = first + UInt32(seconds)
        records.append(3)
        put(end)
        put(first)
        put(UInt32(seconds * 1000))
        put(UInt32(seconds * 1000))
        put(UInt32(distance / 10))
        put(UInt8(2))  // cycling
        put(UInt8(7))  // road
        put(UInt16(energy / 4184 / 0.24))  // kcal at 24 % efficiency
        put(UInt8(rideHeart.sum / max(1, seconds)))
        put(rideHeart.max)
        define(
            4, FITProfile.Message.activity,
            [(253, 4, Base.uint32), (0, 4, Base.uint32), (1, 2, Base.uint16), (2, 1, Base.enumeration), (5, 4, Base.uint32)])
        records.append(4)
        put(end)
        put(UInt32(seconds * 1000))
        put(UInt16(1))
        put(UInt8(0))
        put(UInt32(Int(end) + zoneOffset))

        var header: [UInt8] = [14, 0x20, 0x54, 0x08]
        withUnsafeBytes(of: UInt32(records.count).littleEndian) { header += $0 }
        header += Array(".FIT".utf8)
        header = CRC16.arc.appendingLittleEndian(to: header)
        let file = header + records
        return CRC16.arc.appendingLittleEndian(to: file)
    }
}
