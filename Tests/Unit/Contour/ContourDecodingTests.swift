import Drivers
import Foundation
import Model
import TestSupport
import XCTest

final class ContourDecodingTests: XCTestCase {
    func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Fixtures.url("contour/\(path)")))
    }

    func events(_ bytes: [UInt8]) throws -> [ASTMEvent] {
        var decoder = ASTMLinkDecoder()
        decoder.append(bytes)
        var events: [ASTMEvent] = []
        while let event = try decoder.next(location: "in the test") { events.append(event) }
        XCTAssertEqual(decoder.pendingCount, 0)
        return events
    }

    func testHeaderReplyFromAContourUSB() throws {
        let events = try events(try bytes("glucometerutils/header-reply.bin"))
        XCTAssertEqual(events.count, 3)
        XCTAssertEqual(events.first, .control(.eot))
        XCTAssertEqual(events.last, .control(.enq))
        guard case .frame(let frame) = events[1] else { return XCTFail() }
        XCTAssertEqual(frame.number, 1)
        XCTAssertFalse(frame.isFinal)
        XCTAssertEqual(ASTMFrame.checksum(number: frame.number, text: frame.text, isFinal: false), 0xD7)

        let text = String(decoding: frame.text.dropLast(), as: UTF8.self)
        let header = try ContourHeader(text)
        XCTAssertEqual(header.product, "Bayer7390")
        XCTAssertEqual(header.versions, ["01.24", "01.04", "09.02.20"])
        XCTAssertEqual(header.serial, "7390-2336773")
        XCTAssertEqual(header.unit, .milligramsPerDeciliter)
        XCTAssertEqual(header.reportableRange, 10...600)
        XCTAssertEqual(header.configuration["I"], "0200")
        XCTAssertEqual(header.delimiters.field, "|")
        XCTAssertEqual(header.delimiters.repeat, "\\")
        XCTAssertEqual(header.delimiters.component, "^")
        XCTAssertEqual(header.delimiters.escape, "&")
        XCTAssertEqual(header.clock, CivilDate.days(year: 2019, month: 9, day: 22) * 86_400 + 13 * 3600 + 4 * 60)
    }

    func testResultRecordsInMilligrams() throws {
        let text = try String(contentsOf: Fixtures.url("contour/glucometerutils/result-record.txt"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let result = try ContourResult(text, delimiters: ASTMDelimiters())
        XCTAssertEqual(result.sequence, 8)
        XCTAssertEqual(result.type, "Glucose")
        XCTAssertEqual(result.value, 133)
        XCTAssertEqual(result.unitText, "mg/dL")
        XCTAssertEqual(result.reference, "P")
        XCTAssertEqual(result.markers, ["B", "X"])
        XCTAssertEqual(result.time, CivilDate.days(year: 2012, month: 2, day: 5) * 86_400 + 20 * 3600 + 34 * 60)

        guard case .frame(let frame) = try events(try bytes("tidepool/result-frame-mgdl.bin")).first else { return XCTFail() }
        XCTAssertEqual(frame.number, 5)
        let framed = try ContourResult(String(decoding: frame.text.dropLast(), as: UTF8.self), delimiters: ASTMDelimiters())
        XCTAssertEqual(framed.sequence, 3)
        XCTAssertEqual(framed.value, 93)
        XCTAssertEqual(framed.markers, ["A", "M0", "T1"])
        XCTAssertEqual(framed.timeText, "201505261150")
    }

    /// GPL data (glucodump): read from ../shared only.
    func testMillimolarMeterFromSharedVectors() throws {
        guard let header = Fixtures.sharedVector("contour/glucodump/bayer7390-header-reply.bin"),
            let result = Fixtures.sharedVector("contour/glucodump/result-frame-mmol.bin")
        else {
            throw XCTSkip("../shared is absent")
        }
        // Both snippets are frame 1; consecutive, the second would be a retransmission, so the
        // (mg/dL) Tidepool frame 5 goes between them.
        var session = ContourSession()
        let stream =
            try events([UInt8](try Data(contentsOf: header))) + events(try bytes("tidepool/result-frame-mgdl.bin"))
            + events([UInt8](try Data(contentsOf: result)))
        for event in stream {
            if case .frame(let frame) = event { try session.absorb(frame, hostTime: nil) }
        }
        XCTAssertEqual(session.header?.unit, .millimolesPerLiter)
        XCTAssertEqual(session.header?.serial, "7390-1163170")
        XCTAssertEqual(session.retransmittedFrames, 0)
        let download = try session.normalised()
        XCTAssertEqual(download.glucose.count, 2)
        let reading = try XCTUnwrap(download.glucose.last)
        XCTAssertEqual(reading.value, 7.9)
        XCTAssertEqual(reading.unit, .millimolesPerLiter)
        XCTAssertEqual(reading.recordKey, "result:67@201011281949")
        XCTAssertEqual(GlucoseThresholds.consensus.tag(reading.value, unit: reading.unit), .inRange)
        XCTAssertTrue(download.notes.contains("the transfer ended without the terminator record"))
    }

    func testBadChecksumNamesTheFrame() throws {
        var frame = try bytes("tidepool/result-frame-mgdl.bin")
        frame[10] ^= 0x01
        XCTAssertThrowsError(try events(frame)) { error in
            guard case ContourError.frameChecksumMismatch(_, let expected, "74") = error else { return XCTFail("unexpected \(error)") }
            XCTAssertNotEqual(expected, 0x74)
            XCTAssertTrue("\(error)".hasPrefix("ASTM frame 5 (R|3|"), "\(error)")
        }
    }

    func testReportFraming() throws {
        let payload = Array(0..<150).map { UInt8($0) }
        let reports = ContourReport.reports(carrying: payload)
        XCTAssertEqual(reports.map(\.count), [64, 64, 64])
        XCTAssertEqual(reports.map { $0[3] }, [60, 60, 30])
        XCTAssertEqual(Array(reports[0].prefix(3)), Array("ABC".utf8))
        var joined: [UInt8] = []
        for report in reports { joined += try ContourReport.payload(of: report, location: "test") }
        XCTAssertEqual(joined, payload)
        XCTAssertThrowsError(try ContourReport.payload(of: [0x41, 0x42, 0x43, 61] + [UInt8](repeating: 0, count: 60), location: "at packet 3")) {
            error in
            XCTAssertEqual("\(error)", "bad HID report at packet 3: length byte 61 does not fit a report of 64 bytes")
        }
        XCTAssertThrowsError(try ContourReport.payload(of: [0x41, 0x42], location: "at packet 4"))
    }

    func testRetransmittedFrameIsTakenOnce() throws {
        let frame = try bytes("tidepool/result-frame-mgdl.bin")
        var session = ContourSession()
        for event in try events(try bytes("glucometerutils/header-reply.bin") + frame + frame) {
            if case .frame(let f) = event { try session.absorb(f, hostTime: nil) }
        }
        XCTAssertEqual(session.retransmittedFrames, 1)
        XCTAssertEqual(session.results.count, 1)
    }

    func testMarkersBecomeANote() throws {
        let result = try ContourResult("R|4|^^^Glucose|120|mg/dL^P||F/Z6/</D||201505261150", delimiters: ASTMDelimiters())
        XCTAssertEqual(result.note, "fasting; 90 min after meal; don't feel right")
        XCTAssertTrue(result.isBelowRange)
        XCTAssertNil(try ContourResult("R|5|^^^Glucose|120|mg/dL^P||>||201505261150", delimiters: ASTMDelimiters()).note)
        XCTAssertNil(try ContourResult("R|6|^^^Glucose|120|mg/dL^P||||201505261150", delimiters: ASTMDelimiters()).note)
    }

    func testImpossibleRecordsAreRefused() {
        XCTAssertThrowsError(try ContourResult("R|x|^^^Glucose|93|mg/dL^P||||201505261150", delimiters: ASTMDelimiters()))
        XCTAssertThrowsError(try ContourResult("R|3|^^^Glucose|93|mg/dL^P||||201513261150", delimiters: ASTMDelimiters())) { error in
            XCTAssertTrue("\(error)".contains("timestamp \"201513261150\""), "\(error)")
        }
        XCTAssertThrowsError(try ContourHeader("H|\\^&||pw|Bayer7390|U=7|1"))
    }
}
