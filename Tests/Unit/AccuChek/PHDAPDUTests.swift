import Drivers
import Model
import Transport
import XCTest

/// The IEEE 11073-20601 codec on bytes worked out by hand from the layouts in Tidepool uploader
/// `lib/drivers/roche/accuChekUSB.js` (the byte offsets its builders write and `parseData` reads).
final class PHDAPDUTests: XCTestCase {
    private func bytes(_ hex: String) -> [UInt8] {
        Hex.decode(Substring(hex.filter { !$0.isWhitespace }))!
    }

    /// The AARE: 0xE300, a 44-byte body: accepted-unknown-config, data-proto-id 20601, 38 bytes
    /// of association information (protocol version 0x80000002, MDER, nomenclature 0x80000000,
    /// functional units 0, manager, the 8-byte system id, then zeros).
    func testAssociationResponseBytes() throws {
        let expected = bytes(
            """
            E300 002C 0003 5079 0026 80000002 8000 80000000 00000000 80000000
            0008 474C55434F425247 0000 0000 00 00 0000 0000
            """)
        XCTAssertEqual(expected.count, 48)
        let encoded = AccuChekDriver.associationResponse.encoded()
        XCTAssertEqual(Hex.encode(encoded), Hex.encode(expected))
        guard case .associationResponse(let response) = try PHDAPDU.decode(expected) else { return XCTFail("not an AARE") }
        XCTAssertEqual(response.result, 3)
        XCTAssertEqual(response.dataProtocolID, 20601)
        XCTAssertEqual(response.phd.protocolVersion, 0x8000_0002)
        XCTAssertEqual(response.phd.systemType, 0x8000_0000)
        XCTAssertEqual(response.phd.systemID, Array("GLUCOBRG".utf8))
    }

    /// An AARQ as a glucose meter sends it, read down to its system id and dev-config-id.
    func testAssociationRequest() throws {
        let aarq = bytes(
            """
            E200 0032 80000000 0001 002A 5079 0026 80000002 8000 80000000 00000000 00800000
            0008 0060190000123456 4000 0000 01 00 0000 0000
            """)
        guard case .associationRequest(let request) = try PHDAPDU.decode(aarq) else { return XCTFail("not an AARQ") }
        let phd = try XCTUnwrap(request.phd)
        XCTAssertEqual(phd.systemID, [0x00, 0x60, 0x19, 0x00, 0x00, 0x12, 0x34, 0x56])
        XCTAssertEqual(phd.deviceConfigurationID, 0x4000)
        XCTAssertEqual(phd.systemType, PhdAssociationInformation.agentSystemType)
        XCTAssertEqual(phd.dataRequestInitAgentCount, 1)
        XCTAssertEqual(PHDAPDU.associationRequest(request).encoded(), aarq)
    }

    /// The host's requests, byte for byte: configuration response, GET of all MDS attributes,
    /// the two PM-store actions, a segment confirmation with status 0x0080, release.
    func testHostRequestBytes() {
        let configResponse = PHDAPDU.presentation(
            DataAPDU(
                invokeID: 0x0007,
                message: .eventReportResult(
                    PHDEvent(
                        handle: 0, time: 0, type: PHDEvent.configuration, info: PHDConfigReport.response(reportID: 0x4000)))))
        XCTAssertEqual(Hex.encode(configResponse.encoded()), Hex.encode(bytes("E700 0016 0014 0007 0201 000E 0000 00000000 0D1C 0004 4000 0000")))

        let get = PHDAPDU.presentation(DataAPDU(invokeID: 0x0008, message: .get(handle: 0, attributeIDs: [])))
        XCTAssertEqual(Hex.encode(get.encoded()), Hex.encode(bytes("E700 000E 000C 0008 0103 0006 0000 0000 0000")))

        let info = PHDAPDU.presentation(
            DataAPDU(
                invokeID: 0x0009,
                message: .action(
                    handle: 0x0002, type: DataMessage.getAction, arguments: PHDSegmentInfo.allSegments, confirmed: true)))
        XCTAssertEqual(Hex.encode(info.encoded()), Hex.encode(bytes("E700 0014 0012 0009 0107 000C 0002 0C0D 0006 0001 0002 0000")))

        let transfer = PHDAPDU.presentation(
            DataAPDU(
                invokeID: 0x000A,
                message: .action(
                    handle: 0x0002, type: DataMessage.transferAction, arguments: [0, 0], confirmed: true)))
        XCTAssertEqual(Hex.encode(transfer.encoded()), Hex.encode(bytes("E700 0010 000E 000A 0107 0008 0002 0C1C 0002 0000")))

        let segment = PHDSegmentData(instance: 0, firstEntryIndex: 25, entryCount: 25, status: 0x4000, entries: [])
        let confirm = PHDAPDU.presentation(
            DataAPDU(
                invokeID: 0x0003,
                message: .eventReportResult(
                    PHDEvent(
                        handle: 0x0002, time: 0xFFFF_FFFF, type: PHDEvent.segmentData, info: segment.confirmation))))
        XCTAssertEqual(
            Hex.encode(confirm.encoded()),
            Hex.encode(bytes("E700 001E 001C 0003 0201 0016 0002 FFFFFFFF 0D21 000C 0000 00000019 00000019 0080")))
        XCTAssertEqual(confirm.encoded().count, 34)

        XCTAssertEqual(PHDAPDU.releaseRequest(reason: 0).encoded(), [0xE4, 0x00, 0x00, 0x02, 0x00, 0x00])
        XCTAssertEqual(try PHDAPDU.decode([0xE5, 0x00, 0x00, 0x02, 0x00, 0x00]), .releaseResponse(reason: 0))
        XCTAssertEqual(try PHDAPDU.decode([0xE6, 0x00, 0x00, 0x02, 0x00, 0x02]), .abort(reason: 2))
    }

    /// A segment-data event of two entries: the count is the low half of the uint32 at byte 28,
    /// the status byte 32 has 0x40 (last entry), the entries start at byte 36, 12 bytes each.
    func testSegmentDataEvent() throws {
        let event = bytes(
            """
            E700 0038 0036 0001 0101 0030 0002 FFFFFFFF 0D21 0026
            0000 00000000 00000002 C000 0018
            2026031007153000 0063 0000
            2026031012300000 07FE 0040
            """)
        XCTAssertEqual(event.count, 60)
        XCTAssertEqual(event[30...31], [0x00, 0x02])
        XCTAssertEqual(event[32] & 0x40, 0x40)
        var session = AccuChekSession()
        try session.absorb(try PHDAPDU.decode(event), hostTime: nil)
        XCTAssertTrue(session.lastSegmentSeen)
        XCTAssertEqual(session.entries.count, 2)
        let first = try XCTUnwrap(session.entries[0])
        XCTAssertEqual(first.time, PHDAbsoluteTime(year: 2026, month: 3, day: 10, hour: 7, minute: 15, second: 30))
        XCTAssertEqual(MedicalFloat(sfloat: first.glucose).value, 99)
        XCTAssertEqual(first.status, 0)
        let second = try XCTUnwrap(session.entries[1])
        XCTAssertEqual(MedicalFloat(sfloat: second.glucose), .positiveInfinity)
        XCTAssertEqual(second.status, 0x0040)
        guard case .presentation(let data) = try PHDAPDU.decode(event), case .eventReport(let report, let confirmed) = data.message else {
            return XCTFail("not an event report")
        }
        XCTAssertTrue(confirmed)
        XCTAssertEqual(data.invokeID, 1)
        XCTAssertEqual(try PHDAPDU.decode(event).encoded(), event)
        let segment = try PHDSegmentData(report.info)
        XCTAssertEqual(segment.confirmation, bytes("0000 00000000 00000002 0080"))
    }

    /// SFLOAT glucose as the meters send it: mg/dL with exponent 0, mmol/L in tenths, ±INF.
    func testGlucoseSFLOAT() {
        XCTAssertEqual(MedicalFloat(sfloat: 0x0063).value, 99)
        XCTAssertEqual(MedicalFloat(sfloat: 0xF037).value, 5.5)
        XCTAssertEqual(MedicalFloat(sfloat: 0x07FE), .positiveInfinity)
        XCTAssertEqual(MedicalFloat(sfloat: 0x0802), .negativeInfinity)
        XCTAssertEqual(AccuChekMeterSimulatorValues.mmol55, 0xF037)
    }

    /// The GET response of the MDS: system id, model, serial from the ProductionSpec and clock.
    func testMDSAttributes() throws {
        let model = PHDText.systemModel(manufacturer: "Roche", model: "Guide 929")
        let spec = bytes("0002 001C 0000 0000 0004 31323334 0001 0000 000C 3932393132333435363738 00")
        XCTAssertEqual(PHDText.serialNumber(inProductionSpec: spec), "92912345678")
        let response = PHDAPDU.presentation(
            DataAPDU(
                invokeID: 2,
                message: .getResult(
                    handle: 0,
                    attributes: [
                        PHDAttribute(id: PHDCode.attributeSystemID, value: [1, 2, 3, 4, 5, 6, 7, 8]),
                        PHDAttribute(id: PHDCode.attributeModel, value: model),
                        PHDAttribute(id: PHDCode.attributeProductionSpec, value: spec),
                        PHDAttribute(id: PHDCode.attributeTimeAbsolute, value: bytes("2026112809453012")),
                    ])))
        var session = AccuChekSession()
        try session.absorb(try PHDAPDU.decode(response.encoded()), hostTime: nil)
        XCTAssertEqual(session.serial, "92912345678")
        XCTAssertEqual(session.model, "Roche Guide 929")
        XCTAssertEqual(session.clock, PHDAbsoluteTime(year: 2026, month: 11, day: 28, hour: 9, minute: 45, second: 30, hundredths: 12))
    }

    /// BCD AbsoluteTime: digits and field ranges are checked.
    func testAbsoluteTime() {
        let time = PHDAbsoluteTime(bcd: bytes("2024022923595999"))
        XCTAssertEqual(time?.text, "2024-02-29 23:59:59")
        XCTAssertEqual(time?.bcd, bytes("2024022923595999"))
        XCTAssertNil(PHDAbsoluteTime(bcd: bytes("2023022912000000")), "29 February 2023 does not exist")
        XCTAssertNil(PHDAbsoluteTime(bcd: bytes("2026131012000000")), "month 13")
        XCTAssertNil(PHDAbsoluteTime(bcd: bytes("20260310120000 5A")), "0x5A is not BCD")
        XCTAssertEqual(PHDAbsoluteTime(seconds: 1_773_133_200), PHDAbsoluteTime(year: 2026, month: 3, day: 10, hour: 9, minute: 0, second: 0))
    }

    /// Short and malformed APDUs fail with the APDU named and the byte where it went wrong.
    func testMalformedAPDUs() {
        func failure(_ hex: String) -> AccuChekError? {
            do {
                _ = try PHDAPDU.decode(bytes(hex))
                return nil
            } catch {
                return error
            }
        }
        XCTAssertEqual(
            failure("E700 000E 000C 0008 0103 0006 0000 0000 00"),
            .malformedAPDU(apdu: "presentation APDU (0xE700)", offset: 2, reason: "its length field says 14 body bytes but 13 are there"))
        XCTAssertEqual(failure("E800 0002 0000"), .malformedAPDU(apdu: "APDU 0xE800", offset: 0, reason: "not an IEEE 11073-20601 APDU choice"))
        XCTAssertEqual(
            failure("E700 0008 0006 0008 0109 0000"),
            .malformedAPDU(apdu: "presentation APDU (0xE700)", offset: 8, reason: "unknown data-APDU choice 0x0109"))
        XCTAssertEqual(
            failure("E700 000E 000C 0008 0103 0006 0000 0001 0004"),
            .malformedAPDU(apdu: "presentation APDU (0xE700)", offset: 16, reason: "attribute-id-list length 4 runs past the 0 bytes left"))
        XCTAssertEqual(
            failure("E400 0001 00"),
            .malformedAPDU(apdu: "release request (0xE400)", offset: 4, reason: "release reason needs 2 bytes but 1 are left"))
        XCTAssertEqual(failure("E5"), .malformedAPDU(apdu: "APDU", offset: 0, reason: "APDU choice needs 2 bytes but 1 are left"))
        XCTAssertEqual(
            failure("E500 0004 0000 0000"),
            .malformedAPDU(apdu: "release response (0xE500)", offset: 6, reason: "2 bytes more than its lengths account for"))
        // A segment event whose count disagrees with its entry bytes.
        let event = bytes("E700 002C 002A 0001 0101 0024 0002 FFFFFFFF 0D21 001A 0000 00000000 00000002 C000 000C 2026031007153000 0063 0000")
        var session = AccuChekSession()
        XCTAssertThrowsError(try session.absorb(try PHDAPDU.decode(event), hostTime: nil)) { error in
            XCTAssertTrue("\(error)".contains("2 entries of 12 bytes do not fill its 12 entry bytes"), "\(error)")
        }
    }

    /// APDUs split over 64-byte packets, and two in one read, come out whole.
    func testAssemblerAcrossPackets() throws {
        let first = PHDAPDU.presentation(
            DataAPDU(
                invokeID: 1,
                message: .getResult(
                    handle: 0,
                    attributes: [
                        PHDAttribute(id: PHDCode.attributeModel, value: [UInt8](repeating: 0x41, count: 150))
                    ]))
        ).encoded()
        let second = PHDAPDU.releaseResponse(reason: 0).encoded()
        let stream = first + second
        var assembler = PHDAPDUAssembler()
        var out: [[UInt8]] = []
        for start in stride(from: 0, to: stream.count, by: 64) {
            assembler.append(Array(stream[start..<min(stream.count, start + 64)]))
            while let apdu = assembler.next() { out.append(apdu) }
        }
        XCTAssertEqual(out, [first, second])
        XCTAssertEqual(assembler.bufferedCount, 0)
        XCTAssertGreaterThan(first.count, 128)
    }
}

private enum AccuChekMeterSimulatorValues {
    static let mmol55: UInt16 = 0xF000 | 55
}
