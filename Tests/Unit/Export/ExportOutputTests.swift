import Export
import Foundation
import Model
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The exports' byte writers against what wrote the same values before: `String(format:)`,
/// `DisplayText.number`, `JSONEncoder` (pretty, sorted keys, slashes not escaped),
/// `ISO8601DateFormatter`, and Swift strings' characters for CSV quoting.
final class ExportTextTests: XCTestCase {
    func written(_ body: (inout ExportOutput) -> Void) -> String {
        var output = ExportOutput.inMemory()
        body(&output)
        return String(decoding: output.bytes, as: UTF8.self)
    }

    func encoded(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// mg/dL values as devices and the app store them (whole, one or two decimals, mmol/L
    /// converted with all its digits), their mmol/L, and grams, minutes and units.
    func testNumbers() throws {
        var random = SplitMix(seed: 25)
        var values: [Double] = [
            0, 0.04, 0.05, 0.25, 0.9, 1e-7, 39.99999999, 69.6, 70.2624, 99.7, 180.0000001, 204.5, 999.9999999, 45.25, 3.333, 10.0,
        ]
        for _ in 0..<4000 {
            let mgdl = Double(Int.random(in: 1...9999, using: &random)) / [1, 10, 100][Int.random(in: 0...2, using: &random)]
            values += [mgdl, Double.random(in: 0.1...55, using: &random) * GlucoseUnit.mgdlPerMmol, Double.random(in: 0...500, using: &random)]
        }
        for value in values {
            XCTAssertEqual(written { $0.appendExact(value) }, GlucoseValueText.exact(value), "\(value)")
            for places in 0...2 {
                let scale = pow(10, Double(places))
                let rounded = (value * scale).rounded() / scale
                XCTAssertEqual(
                    written { $0.appendCSV(value, places: places, trimmingZeros: false) }, String(format: "%.\(places)f", rounded), "\(value)")
                XCTAssertEqual(
                    written { $0.appendCSV(value, places: places, trimmingZeros: true) }, DisplayText.number(rounded, decimals: places), "\(value)")
                XCTAssertEqual(written { $0.appendJSON(value, places: places) }, try encoded(rounded), "\(value)")
            }
        }
        XCTAssertEqual(written { $0.appendCSV(-0.04, places: 1, trimmingZeros: true) }, "0")
        XCTAssertEqual(written { $0.appendCSV(-0.04, places: 1, trimmingZeros: false) }, "-0.0")
    }

    func testTexts() throws {
        let texts = [
            "", "plain", "comma, inside", "quote \"q\"", "line\nbreak", "crlf\r\nend", "crlf,\r\n", "cr\ronly", "tab\there",
            "\u{1}\u{8}\u{C}\u{1F}\u{7F}", "back\\slash / slash", "crème brûlée 血糖 😀", "comb ,\u{301} x", "quote\"\u{301}mark",
            "both \"\u{301}, and \"", "\u{600}, prepended",
        ]
        for text in texts {
            let csv =
                text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
                ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
            XCTAssertEqual(Array(written { $0.appendCSV(text) }.utf8), Array(csv.utf8), text.debugDescription)
            let bytes = Array(text.utf8)
            XCTAssertEqual(
                Array(written { out in bytes.withUnsafeBufferPointer { out.appendCSV(column: $0) } }.utf8), Array(csv.utf8), text.debugDescription)
            let json = try encoded(text)
            XCTAssertEqual(written { $0.appendJSON(text) }, json, text.debugDescription)
            XCTAssertEqual(written { out in bytes.withUnsafeBufferPointer { out.appendJSON(column: $0) } }, json)
        }
        // A column's text as GRDB makes a String of it: up to a NUL, bad UTF-8 replaced.
        for (column, string) in [([0x6E, 0x75, 0x6C, 0x00, 0x61], "nul"), ([0x62, 0x61, 0x64, 0xFF, 0x2C, 0x78], "bad\u{FFFD},x")]
            as [([UInt8], String)]
        {
            XCTAssertEqual(written { out in column.withUnsafeBufferPointer { out.appendCSV(column: $0) } }, written { $0.appendCSV(string) })
            XCTAssertEqual(written { out in column.withUnsafeBufferPointer { out.appendJSON(column: $0) } }, try encoded(string))
        }
    }

    func testInstants() {
        var random = SplitMix(seed: 2025)
        let seconds = ISO8601DateFormatter()
        seconds.formatOptions = [.withInternetDateTime]
        let milliseconds = ISO8601DateFormatter()
        milliseconds.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for index in 0..<4000 {
            // As the store holds instants: to the millisecond, from 2000 on; every 7th on a half second.
            let millisecond = index % 7 == 0 ? 500 : Int64.random(in: 0...999, using: &random)
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: 946_684_800...4_102_444_799, using: &random)) + Double(millisecond) / 1000)
            XCTAssertEqual(
                written { $0.appendInstant(date, milliseconds: false) },
                seconds.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded())))
            XCTAssertEqual(written { $0.appendInstant(date, milliseconds: true) }, milliseconds.string(from: date))
        }
    }
}

/// Writing out: everything arrives, and a reader that goes away or a full disk is an error
/// that says so.
final class ExportOutputTests: XCTestCase {
    override func setUp() {
        // Writing to a pipe nobody reads is then EPIPE, not the end of the test process.
        signal(SIGPIPE, SIG_IGN)
    }

    func testClosedPipe() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        close(ends[0])
        defer { close(ends[1]) }
        var output = ExportOutput(descriptor: ends[1])
        output.append("time,day\n")
        XCTAssertThrowsError(try output.flush()) { error in
            XCTAssertEqual(error as? ExportOutputError, .closed(afterBytes: 0))
            XCTAssertEqual(
                "\(error)", "the output was closed after 0 bytes (the program reading the export stopped reading); the export is incomplete")
        }
    }

    func testFullDisk() throws {
        let full = open("/dev/full", O_WRONLY)
        try XCTSkipIf(full < 0, "no /dev/full")
        defer { close(full) }
        var output = ExportOutput(descriptor: full)
        output.append("x")
        XCTAssertThrowsError(try output.flush()) { error in
            XCTAssertEqual(error as? ExportOutputError, .failed(afterBytes: 0, errno: ENOSPC))
            XCTAssertEqual("\(error)", "writing the export failed after 0 bytes: No space left on device; the export is incomplete")
        }
    }

    /// A non-blocking pipe takes part of each write and then would block: every byte still
    /// arrives, in order, the buffer written out row by row as it fills.
    func testShortWrites() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        XCTAssertEqual(fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK), 0)
        let rows = (0..<40_000).map { Array("row \($0), 2015-07-18T00:18:17Z, \"quoted\"\n".utf8) }
        let expected = rows.flatMap { $0 }
        let received = Received()
        Thread.detachNewThread { [read = ends[0]] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                received.bytes += buffer[0..<count]
            }
            close(read)
            received.done.signal()
        }
        var output = ExportOutput(descriptor: ends[1])
        var largest = 0
        for row in rows {
            output.append(row)
            largest = max(largest, output.bytes.count)
            try output.endRow()
        }
        try output.flush()
        close(ends[1])
        received.done.wait()
        XCTAssertEqual(output.written, expected.count)
        XCTAssertEqual(received.bytes, expected)
        XCTAssertLessThan(largest, ExportOutput.capacity + 100, "the buffer is written out as it fills")
    }
}

/// The bytes a reader thread got; read after `done` is signalled.
private final class Received: @unchecked Sendable {
    var bytes: [UInt8] = []
    let done = DispatchSemaphore(value: 0)
}
