import Model

/// The GATT Date Time field (7 bytes): year u16 (0 = unknown, else 1582–9999), month u8
/// (0 = unknown, 1–12), day u8 (0 = unknown, 1–31), hours 0–23, minutes 0–59, seconds 0–59.
/// A wall clock without a zone: the Glucose service's base time and the CGM Session Start Time
/// (which adds its zone separately) use it.
///
/// Source: Bluetooth SIG GATT XML org.bluetooth.characteristic.date_time
/// (https://github.com/oesmith/gatt-xml).
package struct GATTDateTime: Sendable, Equatable, Hashable, CustomStringConvertible {
    package var year: Int
    package var month: Int
    package var day: Int
    package var hours: Int
    package var minutes: Int
    package var seconds: Int

    package init(year: Int, month: Int, day: Int, hours: Int, minutes: Int, seconds: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// The wall clock as seconds since 1970-01-01T00:00:00 read without a zone, or nil when the
    /// year, month or day is unknown (0).
    package var wallClockSeconds: Int64? {
        guard year != 0, month != 0, day != 0 else { return nil }
        return CivilDate.days(year: year, month: month, day: day) * 86_400
            + Int64(hours * 3600 + minutes * 60 + seconds)
    }

    /// The seven bytes as a sensor sends them.
    package var bytes: [UInt8] {
        [
            UInt8(truncatingIfNeeded: year), UInt8(truncatingIfNeeded: year >> 8), UInt8(month), UInt8(day),
            UInt8(hours), UInt8(minutes), UInt8(seconds),
        ]
    }

    package var description: String {
        let date = CivilDate.dateString(year: year, month: month, day: day)
        var clock: [UInt8] = []
        clock.appendDigits(hours, width: 2)
        clock.append(UInt8(ascii: ":"))
        clock.appendDigits(minutes, width: 2)
        clock.append(UInt8(ascii: ":"))
        clock.appendDigits(seconds, width: 2)
        return date + "T" + String(decoding: clock, as: UTF8.self)
    }
}

extension GATTValueReader {
    /// Reads and range-checks a Date Time field.
    mutating func dateTime(_ field: String) throws(BLEValueError) -> GATTDateTime {
        let at = offset
        let year = Int(try u16("\(field) year"))
        let month = Int(try u8("\(field) month"))
        let day = Int(try u8("\(field) day"))
        let hours = Int(try u8("\(field) hours"))
        let minutes = Int(try u8("\(field) minutes"))
        let seconds = Int(try u8("\(field) seconds"))
        func invalid(_ reason: String) -> BLEValueError {
            .invalidField(characteristic: characteristic, field: field, offset: at, reason: reason)
        }
        guard year == 0 || (1582...9999).contains(year) else { throw invalid("has year \(year) (allowed 0 or 1582–9999)") }
        guard (0...12).contains(month) else { throw invalid("has month \(month) (allowed 0–12)") }
        let lastDay = year != 0 && month != 0 ? CivilDate.daysInMonth(year: year, month: month) : 31
        guard (0...lastDay).contains(day) else { throw invalid("has day \(day) (allowed 0–\(lastDay))") }
        guard hours < 24, minutes < 60, seconds < 60 else {
            throw invalid("has time \(hours):\(minutes):\(seconds) (hours 0–23, minutes and seconds 0–59)")
        }
        return GATTDateTime(year: year, month: month, day: day, hours: hours, minutes: minutes, seconds: seconds)
    }
}
