import Model
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
                let record = DeviceGlucoseRecord(stream: stream, index: index, deviceSeconds: 0, displaySeconds: nil, value: 100, kind: .sensor)
                XCTAssertEqual(record.recordKey, "\(stream):\(index)")
                XCTAssertEqual(record.recordKey.utf8.count, "\(stream):\(index)".utf8.count)
            }
        }
        XCTAssertEqual(
            DeviceGlucoseRecord(stream: "egv", index: 25_915, deviceSeconds: 0, displaySeconds: nil, value: 100, kind: .sensor).recordKey,
            "egv:25915")
    }
}
