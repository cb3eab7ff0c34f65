import Foundation
import Model
import Pipeline
import Transport

/// Roche Accu-Chek USB meters: IEEE 11073-20601 over USB PHDC (interface class 0x0F, bulk
/// endpoints 0x81 IN and 0x01 OUT, 64-byte packets). The exchange, as Tidepool uploader
/// (`lib/drivers/roche/accuChekUSB.js`) and emogenet/accuchek (`main.cpp`) hold it: the meter's
/// association request and the host's answer, the meter's configuration and its confirmation,
/// GET of the MDS attributes (serial, model, clock), MDC_ACT_SEG_GET_INFO and
/// MDC_ACT_SEG_TRIG_XFER on the PM-store, every segment-data event confirmed, then release.
/// Read-only: the host never sends MDC_ACT_SEG_SET_TIME or MDC_ACT_SEG_CLR, so the meter's clock
/// and memory are left as they are.
package enum AccuChekDriver: USBDeviceDriver {
    package static let family: DeviceFamily = "accuchek"
    package static let products = [
        USBProduct(vendorID: 0x173A, productID: 0x21D5, name: "Accu-Chek Guide"),
        USBProduct(vendorID: 0x173A, productID: 0x21CF, name: "Accu-Chek Aviva Connect"),
        USBProduct(vendorID: 0x173A, productID: 0x21D6, name: "Accu-Chek Guide Me"),
        USBProduct(vendorID: 0x173A, productID: 0x21D7, name: "Accu-Chek Instant"),
        USBProduct(vendorID: 0x173A, productID: 0x21D8, name: "ReliOn Platinum"),
        USBProduct(vendorID: 0x173A, productID: 0x21CC, name: "Accu-Chek Active"),
    ]
    package static let capabilities: DeviceCapabilities = [.glucose, .storedHistory, .passiveDecode]
    package static let summary = """
        glucose results (strip) over IEEE 11073-20601, read-only: never sets the clock or clears the memory; \
        control-solution results are counted, not stored; ±INF become HI/LO; the meter's unit and status kept
        """

    /// How long one read may wait for the meter (Tidepool uses 5 s).
    package static let readTimeout: Duration = .seconds(5)
    /// The read buffer: a whole multiple of the 64-byte packet size.
    static let readLength = 1024
    /// The most segment-data events one transfer may take: the largest memory (720 results on
    /// a Guide) comes in far fewer; a meter that keeps sending past this is not ending its
    /// transfer.
    static let maximumSegmentEvents = 10_000
    /// Association requests answered again before the configuration.
    static let maximumAssociationRepeats = 3
    /// The host's own EUI-64 system id, sent in its association response.
    static let managerSystemID: [UInt8] = Array("GLUCOBRG".utf8)

    package static func download(over transport: any USBTransport, context: DownloadContext) throws(AccuChekError) -> GlucoseDownload {
        try readSession(over: transport, progress: context.progress).normalised()
    }

    package static func decode(recorded device: RecordedUSBDevice) throws(AccuChekError) -> GlucoseDownload {
        var session = AccuChekSession()
        var assembler = PHDAPDUAssembler()
        for transfer in device.transfers where transfer.direction == .in && (transfer.type == .bulk || transfer.type == .interrupt) {
            if transfer.status != 0 { throw AccuChekError.transport(.recorded(status: transfer.status, in: transfer)) }
            assembler.append(transfer.data)
            while let bytes = assembler.next() {
                try session.absorb(try apdu(bytes, packet: transfer.packetNumber), hostTime: transfer.timestamp)
            }
        }
        guard session.lastSegmentSeen || session.transfer.map({ $0.result != 0 }) == true else {
            throw AccuChekError.incompleteTransfer(reason: "the recording ends before the meter's last segment-data event")
        }
        return try session.normalised()
    }

    /// Decodes one APDU, naming the capture packet in its error.
    private static func apdu(_ bytes: [UInt8], packet: Int) throws(AccuChekError) -> PHDAPDU {
        do {
            return try PHDAPDU.decode(bytes)
        } catch .malformedAPDU(let apdu, let offset, let reason, _) {
            throw .malformedAPDU(apdu: apdu, offset: offset, reason: reason, packet: packet)
        }
    }

    /// The manager's association response: accepted with an unknown configuration, so that the
    /// meter sends its configuration (Tidepool's `buildAssociationResponse`).
    package static var associationResponse: PHDAPDU {
        var phd = PhdAssociationInformation(systemType: PhdAssociationInformation.managerSystemType, systemID: managerSystemID)
        phd.protocolVersion = 0x8000_0002
        return .associationResponse(AssociationResponse(result: AssociationResponse.acceptedUnknownConfig, phd: phd))
    }

    /// Holds the exchange. After the association, a failure sends the meter an abort so that it
    /// leaves the association.
    package static func readSession(over transport: any USBTransport, progress: DownloadProgress = .silent) throws(AccuChekError) -> AccuChekSession {
        let link = try AccuChekLink(transport: transport)
        var session = AccuChekSession()
        let request = try link.receive(waitingFor: "the meter's association request")
        guard case .associationRequest = request.apdu else {
            throw .unexpectedAPDU(location: "instead of its association request", received: request.apdu.name)
        }
        try session.absorb(request.apdu, hostTime: request.hostTime)
        do {
            try exchange(link, &session, progress: progress)
        } catch {
            link.abort()
            throw error
        }
        return session
    }

    private static func exchange(_ link: AccuChekLink, _ session: inout AccuChekSession, progress: DownloadProgress) throws(AccuChekError) {
        try link.send(associationResponse)

        var configuration = try link.receive(waitingFor: "the meter's configuration")
        // An agent repeats its association request when the answer did not reach it in time
        // (IEEE 11073-20601's association timeout): it is answered again.
        var repeats = 0
        while case .associationRequest = configuration.apdu, repeats < maximumAssociationRepeats {
            repeats += 1
            try session.absorb(configuration.apdu, hostTime: configuration.hostTime)
            try link.send(associationResponse)
            configuration = try link.receive(waitingFor: "the meter's configuration")
        }
        guard case .presentation(let report) = configuration.apdu, case .eventReport(let event, _) = report.message,
            event.type == PHDEvent.configuration
        else {
            throw .unexpectedAPDU(location: "instead of its configuration", received: configuration.apdu.name)
        }
        try session.absorb(configuration.apdu, hostTime: configuration.hostTime)
        let reportID = session.configuration?.reportID ?? 0
        try link.send(
            .presentation(
                DataAPDU(
                    invokeID: report.invokeID,
                    message: .eventReportResult(
                        PHDEvent(
                            handle: event.handle, time: 0, type: PHDEvent.configuration, info: PHDConfigReport.response(reportID: reportID))))))
        guard let pmStore = session.pmStore else { throw .missingAttribute("a PM-store object in its configuration") }

        var invokeID = report.invokeID
        func request(_ message: DataMessage, _ what: String) throws(AccuChekError) -> DataMessage {
            invokeID &+= 1
            try link.send(.presentation(DataAPDU(invokeID: invokeID, message: message)))
            let answer = try link.receive(waitingFor: "the answer to \(what)")
            guard case .presentation(let data) = answer.apdu, data.invokeID == invokeID else {
                throw .unexpectedAPDU(location: WireLocation(place: "in answer to \(what) (invoke-id \(invokeID))"), received: answer.apdu.name)
            }
            switch data.message {
            case .error(let code, _): throw .requestFailed(request: what, reason: "error \(code)")
            case .reject(let problem): throw .requestFailed(request: what, reason: "rejected, problem \(problem)")
            default: break
            }
            try session.absorb(answer.apdu, hostTime: answer.hostTime)
            return data.message
        }

        guard case .getResult = try request(.get(handle: 0, attributeIDs: []), "GET of the MDS attributes") else {
            throw .unexpectedAPDU(location: "in answer to GET of the MDS attributes", received: "another message")
        }
        guard
            case .actionResult(_, DataMessage.getAction, _) = try request(
                .action(handle: pmStore.handle, type: DataMessage.getAction, arguments: PHDSegmentInfo.allSegments, confirmed: true),
                "MDC_ACT_SEG_GET_INFO")
        else {
            throw .unexpectedAPDU(location: "in answer to MDC_ACT_SEG_GET_INFO", received: "another message")
        }
        let instance = session.segmentInfo?.segments.first?.instance ?? 0
        guard
            case .actionResult(_, DataMessage.transferAction, _) = try request(
                .action(
                    handle: pmStore.handle, type: DataMessage.transferAction, arguments: [UInt8(instance >> 8), UInt8(instance & 0xFF)],
                    confirmed: true),
                "MDC_ACT_SEG_TRIG_XFER"),
            let transfer = session.transfer
        else {
            throw .unexpectedAPDU(location: "in answer to MDC_ACT_SEG_TRIG_XFER", received: "another message")
        }
        switch transfer.result {
        case 0:
            try receiveSegments(link, &session, pmStore: pmStore.handle, progress: progress)
        case 3:
            break
        default:
            throw .requestFailed(request: "MDC_ACT_SEG_TRIG_XFER", reason: transfer.resultText)
        }

        try link.send(.releaseRequest(reason: 0))
        do {
            let release = try link.receive(waitingFor: "the meter's release response")
            try session.absorb(release.apdu, hostTime: release.hostTime)
        } catch .noAnswer {
            // Every result is in and confirmed: a meter that leaves without answering the
            // release loses nothing. The download notes it.
        }
    }

    /// Confirms each segment-data event, echoing its segment-data-result with status 0x0080,
    /// until the one marked last.
    private static func receiveSegments(
        _ link: AccuChekLink, _ session: inout AccuChekSession, pmStore: UInt16, progress: DownloadProgress
    ) throws(AccuChekError) {
        while !session.lastSegmentSeen {
            guard session.segmentEvents < maximumSegmentEvents else {
                throw .incompleteTransfer(reason: "the meter sent \(maximumSegmentEvents) segment-data events without marking one the last")
            }
            let results = session.entries.count
            let received = try link.receive(waitingFor: "segment data after \(results) result\(results == 1 ? "" : "s")")
            if case .abort = received.apdu {
                // The session counts the results the meter sent before it left.
                try session.absorb(received.apdu, hostTime: received.hostTime)
            }
            guard case .presentation(let data) = received.apdu, case .eventReport(let event, _) = data.message,
                event.type == PHDEvent.segmentData
            else {
                throw .unexpectedAPDU(location: "during the segment transfer", received: received.apdu.name)
            }
            try session.absorb(received.apdu, hostTime: received.hostTime)
            let segment = try PHDSegmentData(event.info, apdu: received.apdu.name)
            try link.send(
                .presentation(
                    DataAPDU(
                        invokeID: data.invokeID,
                        message: .eventReportResult(
                            PHDEvent(
                                handle: pmStore, time: 0xFFFF_FFFF, type: PHDEvent.segmentData, info: segment.confirmation)))))
            progress.report("results", done: session.entries.count)
        }
    }
}

/// The meter's PHDC interface: a bulk pair, claimed, with APDUs reassembled from its packets.
final class AccuChekLink {
    let transport: any USBTransport
    let inEndpoint: USBEndpoint
    let outEndpoint: USBEndpoint
    private var assembler = PHDAPDUAssembler()

    /// The PHDC interface class.
    static let phdcClass: UInt8 = 0x0F

    init(transport: any USBTransport) throws(AccuChekError) {
        self.transport = transport
        func pair(_ interface: USBInterface) -> (in: USBEndpoint, out: USBEndpoint)? {
            let bulk = interface.endpoints.filter { $0.type == .bulk }
            guard let inward = bulk.first(where: { $0.direction == .in }), let out = bulk.first(where: { $0.direction == .out }) else {
                return nil
            }
            return (inward, out)
        }
        let interfaces = transport.device.interfaces
        guard
            let (interface, endpoints) = interfaces.lazy.filter({ $0.interfaceClass == Self.phdcClass })
                .compactMap({ i in pair(i).map { (i, $0) } }).first
                ?? interfaces.lazy.compactMap({ i in pair(i).map { (i, $0) } }).first
        else {
            throw .noDataInterface(device: transport.device.idString)
        }
        inEndpoint = endpoints.in
        outEndpoint = endpoints.out
        do {
            try transport.claimInterface(interface.number)
        } catch {
            throw .transport(error)
        }
        // A standard GET_STATUS before the first bulk read, as Tidepool sends it; a replayed
        // capture of another program may not hold it, and the meter's answer is not needed.
        do {
            _ = try transport.control(
                USBControlSetup(requestType: 0x80, request: 0x00, value: 0, index: 0, length: 2), data: [], timeout: AccuChekDriver.readTimeout)
        } catch .disconnected(let reason) {
            throw .transport(.disconnected(reason))
        } catch .deadlinePassed(let budget) {
            throw .transport(.deadlinePassed(budget))
        } catch {}
    }

    /// The next whole APDU from the meter and the host's clock when its last bytes arrived.
    func receive(waitingFor what: String) throws(AccuChekError) -> (apdu: PHDAPDU, hostTime: Date?) {
        var hostTime: Date?
        var reads = 0
        while true {
            if let bytes = assembler.next() {
                do {
                    return (try PHDAPDU.decode(bytes), hostTime)
                } catch .malformedAPDU(let apdu, let offset, let reason, _) {
                    throw .malformedAPDU(apdu: "\(apdu) from \(transport.device.idString)", offset: offset, reason: reason)
                }
            }
            reads += 1
            guard reads <= PHDAPDU.maximumLength / 64 + 1 else {
                throw .incompleteTransfer(reason: "no whole APDU after \(reads) reads waiting for \(what)")
            }
            do {
                let read = try transport.read(from: inEndpoint, maxLength: AccuChekDriver.readLength, timeout: AccuChekDriver.readTimeout)
                hostTime = read.hostTime
                assembler.append(read.bytes)
            } catch .timeout(let endpoint) {
                if assembler.bufferedCount > 0 {
                    throw .incompleteTransfer(reason: "an APDU stopped after \(assembler.bufferedCount) bytes while waiting for \(what)")
                }
                throw .noAnswer(waitingFor: what, .timeout(endpoint: endpoint))
            } catch {
                throw .transport(error)
            }
        }
    }

    func send(_ apdu: PHDAPDU) throws(AccuChekError) {
        do {
            try transport.write(apdu.encoded(), to: outEndpoint, timeout: AccuChekDriver.readTimeout)
        } catch {
            throw .transport(error)
        }
    }

    /// Tells the meter the association is over after a failure; what it answers does not matter.
    func abort() {
        try? transport.write(PHDAPDU.abort(reason: 0).encoded(), to: outEndpoint, timeout: AccuChekDriver.readTimeout)
    }
}
