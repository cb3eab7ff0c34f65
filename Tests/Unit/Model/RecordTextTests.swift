import Model
import Pipeline
import XCTest

final class RecordKeyTests: XCTestCase {
    /// A record's key is `<stream>:<index>` exactly as string interpolation writes it, for every
    /// width of index, both signs, the extremes of Int64 and streams of any text.
    func testTheKeyIsTheStreamAndTheIndexAsInterpolationWritesThem() {
        var indexes: [Int64] = [0, 1, 9, 10, 99, 100, 25_914, 4_294_967_295, .max, .min, -1, -10, -999]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            indexes += [power - 1, power, power + 1, -power]
        }
        for stream in ["egv", "meter", "", "sensor-glucose", "ström", "🩸", "a:b"] {
            for index in indexes {
                let record = DeviceGlucoseRecord(
                    stream: RecordStream(stream), index: index, deviceSeconds: 0, displaySeconds: nil, value: 100, kind: .sensor)
                XCTAssertEqual(record.recordKey, "\(stream):\(index)")
                XCTAssertEqual(record.recordKey.utf8.count, "\(stream):\(index)".utf8.count)
            }
        }
        XCTAssertEqual(
            DeviceGlucoseRecord(stream: "egv", index: 25_915, deviceSeconds: 0, displaySeconds: nil, value: 100, kind: .sensor).recordKey,
            "egv:25915")
    }
}

final class WallClockWriterTests: XCTestCase {
    /// The writer, which works a day's date out once, appends what `CivilDate.wallClock` writes:
    /// every few minutes over days and midnights, back and forth, before 1970, and years the
    /// fixed-width form cannot hold.
    func testTheWriterWritesWhatWallClockWrites() {
        var seconds: [Int64] = (0..<2_000).map { 1_379_030_400 + Int64($0) * 287 }
        seconds += [0, -1, -86_400, -86_401, 86_399, 86_400, 951_782_400, 1_379_116_799, 1_379_030_400, 1_379_116_800]
        seconds += [253_402_300_799, 253_402_300_800, -62_167_219_200, -62_167_219_201, -62_135_596_800]
        // A day the fixed width cannot hold, twice, then back to a day it can, twice: the date
        // kept for the day is the day's own.
        seconds += [253_402_300_801, 253_402_300_802, 1_379_030_401, 1_379_030_402, 253_402_300_799, 253_402_300_700]
        var writer = CivilDate.WallClockWriter()
        var bytes: [UInt8] = [UInt8(ascii: "x")]
        for value in seconds {
            let start = bytes.count
            writer.append(value, to: &bytes)
            XCTAssertEqual(String(decoding: bytes[start...], as: UTF8.self), CivilDate.wallClock(value), "\(value)")
        }
        XCTAssertEqual(bytes.first, UInt8(ascii: "x"), "what was in the buffer before stays")
        bytes = []
        writer.append(1_379_116_799, to: &bytes)
        writer.append(1_379_116_800, to: &bytes)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "2013-09-13T23:59:592013-09-14T00:00:00")
    }
}
