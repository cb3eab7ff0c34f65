import Drivers
import Foundation
import Model
import Transport
import TransportReplay

/// An Accu-Chek meter in software: one PHDC interface (class 0x0F) with bulk endpoints 0x81 IN
/// and 0x01 OUT, speaking the agent's side of IEEE 11073-20601 as ``AccuChekDriver`` documents
/// it: the association request first, then the configuration once associated, answers to GET
/// and the PM-store actions, and the segment-data events, each after the host confirmed the one
/// before. Everything it serves is synthetic.
public final class AccuChekMeterSimulator: USBTransport {
    public let device: USBDeviceDescription
    /// The host's clock, read when bytes are delivered.
    package var hostClock: () -> Date
    package let serial: String
    package let unit: GlucoseUnit
    /// The meter's clock (its local wall clock).
    package var clock: PHDAbsoluteTime
    package let entries: [AccuChekEntry]
    /// Entries per segment-data event.
    package var entriesPerEvent = 25
    /// The most bytes one read returns (a whole APDU up to the host's buffer by default; 64 serves
    /// each APDU packet by packet).
    package var maximumReadLength = Int.max
    /// After this many APDUs the meter sends nothing more: the host's reads time out.
    package var silentAfterAPDUs: Int?
    /// After this many reads the meter is gone: reads and writes fail as unplugged.
    package var unplugAfterReads: Int?
    /// Answers to the association request the meter does not see: it sends the request again
    /// for each.
    package var lostAssociationResponses = 0
    /// Whether the meter, released, asks to associate again at once (so that a host that stays
    /// connected can read it again).
    package var reassociatesAfterRelease = false
    /// APDUs sent in place of the meter's own, by their number (0: the association request).
    package var replacedAPDUs: [Int: [UInt8]] = [:]

    /// Every APDU the host sent, decoded (nil for bytes that are not an APDU).
    package private(set) var received: [PHDAPDU?] = []
    package private(set) var claimed: Set<UInt8> = []

    private var outbox: [UInt8] = []
    private var apdusSent = 0
    private var reads = 0
    private var inbox = PHDAPDUAssembler()
    /// Whether the host answered the association request: a second answer is not taken.
    private var associated = false
    private var reassociationPending = false
    private var nextEntry = 0
    private var invokeID: UInt16 = 0x0000
    private let pmStoreHandle: UInt16 = 2
    private let systemID: [UInt8] = [0x00, 0x60, 0x19, 0x00, 0x00, 0x12, 0x34, 0x56]

    /// A meter with `serial`, its clock at `clock`, holding `entries` in `unit`.
    public init(
        productID: UInt16 = 0x21D5, serial: String, unit: GlucoseUnit, clock: PHDAbsoluteTime, entries: [AccuChekEntry],
        hostClock: @escaping () -> Date
    ) {
        device = USBDeviceDescription(
            vendorID: 0x173A, productID: productID, bus: 2, address: 9, manufacturer: "Roche", product: "Simulated ACCU-CHEK",
            interfaces: [
                USBInterface(
                    number: 0, interfaceClass: 0x0F, interfaceSubclass: 0, interfaceProtocol: 0,
                    endpoints: [
                        USBEndpoint(address: 0x81, type: .bulk, maxPacketSize: 64),
                        USBEndpoint(address: 0x01, type: .bulk, maxPacketSize: 64),
                    ])
            ])
        self.serial = serial
        self.unit = unit
        self.clock = clock
        self.entries = entries
        self.hostClock = hostClock
        queue(.associationRequest(associationRequest))
    }

    private var associationRequest: AssociationRequest {
        var phd = PhdAssociationInformation(systemType: PhdAssociationInformation.agentSystemType, systemID: systemID)
        phd.deviceConfigurationID = 0x4000
        phd.dataRequestInitAgentCount = 1
        return AssociationRequest(phd: phd)
    }

    /// A glucose value as the meter stores it: whole mg/dL (exponent 0), mmol/L in tenths.
    package static func sfloat(_ value: Double, unit: GlucoseUnit) -> UInt16 {
        if unit == .milligramsPerDeciliter { return UInt16(Int(value.rounded())) & 0x0FFF }
        return 0xF000 | UInt16(Int((value * 10).rounded())) & 0x0FFF
    }

    /// SFLOAT +INF (HI) and −INF (LO).
    package static let high: UInt16 = 0x07FE
    package static let low: UInt16 = 0x0802

    public func claimInterface(_ number: UInt8) throws(TransportError) {
        guard number == 0 else { throw .claimFailed(interface: number, reason: "the simulated meter has only interface 0") }
        claimed.insert(number)
    }

    public func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        guard setup.requestType == 0x80, setup.request == 0x00 else {
            throw .transferFailed(endpoint: 0, reason: "the simulated meter answers only GET_STATUS")
        }
        return USBRead(bytes: [0x00, 0x00], hostTime: hostClock())
    }

    public func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        guard endpoint.address == 0x81 else { throw .transferFailed(endpoint: endpoint.address, reason: "not the bulk IN endpoint") }
        if let limit = unplugAfterReads, reads >= limit { throw .disconnected("simulated Accu-Chek unplugged") }
        if outbox.isEmpty, reassociationPending {
            // A transfer of its own, after the release response was read.
            reassociationPending = false
            associated = false
            invokeID = 0
            queue(.associationRequest(associationRequest))
        }
        guard !outbox.isEmpty else { throw .timeout(endpoint: endpoint.address) }
        reads += 1
        let chunk = Array(outbox.prefix(min(maxLength, maximumReadLength)))
        outbox.removeFirst(chunk.count)
        return USBRead(bytes: chunk, hostTime: hostClock())
    }

    public func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        guard endpoint.address == 0x01 else { throw .transferFailed(endpoint: endpoint.address, reason: "not the bulk OUT endpoint") }
        if let limit = unplugAfterReads, reads >= limit { throw .disconnected("simulated Accu-Chek unplugged") }
        inbox.append(bytes)
        while let apdu = inbox.next() {
            let decoded = try? PHDAPDU.decode(apdu)
            received.append(decoded)
            if let decoded { answer(decoded) }
        }
    }

    public func close() { claimed.removeAll() }

    private func queue(_ apdu: PHDAPDU) {
        defer { apdusSent += 1 }
        if let silent = silentAfterAPDUs, apdusSent >= silent { return }
        outbox += replacedAPDUs[apdusSent] ?? apdu.encoded()
    }

    private func presentation(_ message: DataMessage, invokeID: UInt16) -> PHDAPDU {
        .presentation(DataAPDU(invokeID: invokeID, message: message))
    }

    private func answer(_ apdu: PHDAPDU) {
        switch apdu {
        case .associationResponse where lostAssociationResponses > 0:
            lostAssociationResponses -= 1
            queue(.associationRequest(associationRequest))
        case .associationResponse where !associated:
            associated = true
            let numeric = PHDConfigObject(
                objectClass: PHDCode.classNumeric, handle: 1,
                attributes: [
                    PHDAttribute(id: 2351, value: [0x00, 0x02, 0x71, 0xB8]),
                    PHDAttribute(id: PHDCode.attributeUnitCode, value: unitCode),
                ])
            let store = PHDConfigObject(
                objectClass: PHDCode.classPMStore, handle: pmStoreHandle,
                attributes: [
                    PHDAttribute(id: PHDCode.attributeNumberOfSegments, value: [0x00, 0x01])
                ])
            let report = PHDConfigReport(reportID: 0x4000, objects: [numeric, store])
            queue(
                presentation(
                    .eventReport(PHDEvent(handle: 0, time: 0xFFFF_FFFF, type: PHDEvent.configuration, info: report.encoded()), confirmed: true),
                    invokeID: invokeID))
        case .presentation(let data):
            answer(data)
        case .releaseRequest:
            queue(.releaseResponse(reason: 0))
            reassociationPending = reassociatesAfterRelease
        default:
            break
        }
    }

    private var unitCode: [UInt8] {
        let code = unit == .millimolesPerLiter ? PHDCode.millimolesPerLiter : PHDCode.milligramsPerDeciliter
        return [UInt8(code >> 8), UInt8(code & 0xFF)]
    }

    private func answer(_ data: DataAPDU) {
        switch data.message {
        case .get(0, _):
            queue(
                presentation(
                    .getResult(
                        handle: 0,
                        attributes: [
                            PHDAttribute(id: PHDCode.attributeSystemID, value: systemID),
                            PHDAttribute(id: PHDCode.attributeModel, value: PHDText.systemModel(manufacturer: "Roche", model: "Guide 929")),
                            PHDAttribute(id: PHDCode.attributeProductionSpec, value: PHDText.productionSpec(serial: serial)),
                            PHDAttribute(id: PHDCode.attributeTimeAbsolute, value: clock.bcd),
                        ]), invokeID: data.invokeID))
        case .action(pmStoreHandle, DataMessage.getAction, _, true):
            let count = UInt32(entries.count)
            let info = PHDSegmentInfo(segments: [
                (
                    0,
                    [
                        PHDAttribute(
                            id: 2427,
                            value: [
                                UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF),
                            ])
                    ]
                )
            ])
            queue(presentation(.actionResult(handle: pmStoreHandle, type: DataMessage.getAction, result: info.encoded), invokeID: data.invokeID))
        case .action(pmStoreHandle, DataMessage.transferAction, let arguments, true):
            let instance = arguments.count == 2 ? UInt16(arguments[0]) << 8 | UInt16(arguments[1]) : 0xFFFF
            let result: UInt16 = instance != 0 ? 1 : entries.isEmpty ? 3 : 0
            queue(
                presentation(
                    .actionResult(
                        handle: pmStoreHandle, type: DataMessage.transferAction,
                        result: PHDTransferResponse(instance: instance, result: result).encoded),
                    invokeID: data.invokeID))
            if result == 0 {
                nextEntry = 0
                sendSegment()
            }
        case .eventReportResult(let event) where event.type == PHDEvent.segmentData:
            guard let confirmed = try? PHDSegmentData(event.info + [0, 0]), confirmed.status == PHDSegmentData.managerConfirm,
                Int(confirmed.firstEntryIndex) + Int(confirmed.entryCount) == nextEntry
            else { return }
            if nextEntry < entries.count { sendSegment() }
        default:
            break
        }
    }

    private func sendSegment() {
        let first = nextEntry
        let last = min(entries.count, first + entriesPerEvent)
        nextEntry = last
        var status: UInt16 = 0
        if first == 0 { status |= PHDSegmentData.firstEntry }
        if last == entries.count { status |= PHDSegmentData.lastEntry }
        let segment = PHDSegmentData(
            instance: 0, firstEntryIndex: UInt32(first), entryCount: UInt32(last - first), status: status,
            entries: entries[first..<last].flatMap(\.encoded))
        invokeID &+= 1
        queue(
            presentation(
                .eventReport(
                    PHDEvent(handle: pmStoreHandle, time: 0xFFFF_FFFF, type: PHDEvent.segmentData, info: segment.encoded()), confirmed: true),
                invokeID: invokeID))
    }

    /// Records a session with `meter` to `output` as a usbmon pcap, as `glucobridge import
    /// --record` does.
    public static func record(_ meter: AccuChekMeterSimulator, to output: URL) throws {
        let recorder = try RecordingUSBTransport(recording: meter, to: output, clock: meter.hostClock)
        _ = try AccuChekDriver.download(over: recorder, context: .fresh)
        try recorder.finish()
    }
}
