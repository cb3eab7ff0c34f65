import Foundation

/// The GATT client: runs ATT over any bearer [BlueZ src/shared/att-types.h; procedures as BlueZ
/// src/shared/gatt-helpers.c and att.c do them].
///
/// One request is outstanding at a time. Notifications and indications that arrive while a
/// request waits are queued for `nextNotification`; indications are confirmed as soon as they
/// arrive. A device's own Exchange MTU Request is answered; other requests from the device get
/// "Request Not Supported" (this client has no attribute table). After a request times out the
/// link is closed, as ATT requires, and every later call throws.
package final class ATTClient: GATTClient {
    package let bearer: any ATTBearer
    package private(set) var mtu = ATTClient.defaultMTU
    /// How long a request waits for its answer (ATT's own limit is 30 s).
    package var requestTimeout: Duration
    /// The MTU offered when the device starts an exchange.
    package var preferredMTU: Int

    package static let defaultMTU = 23
    package static let maximumMTU = 517
    /// The longest attribute value (Core Specification Vol 3, Part F, 3.2.9): Read Blob stops there.
    package static let maximumAttributeLength = 512

    private var pending: [GATTNotification] = []
    private var failure: BLEError?

    package init(bearer: any ATTBearer, requestTimeout: Duration = .seconds(30), preferredMTU: Int = ATTClient.maximumMTU) {
        self.bearer = bearer
        self.requestTimeout = requestTimeout
        self.preferredMTU = preferredMTU
    }

    package var peer: BLEPeer { bearer.peer }

    package func exchangeMTU(preferred: Int) throws(BLEError) -> Int {
        let offer = min(max(preferred, Self.defaultMTU), Self.maximumMTU)
        let answer = try request(.exchangeMTURequest(clientMTU: UInt16(offer)))
        guard case .exchangeMTUResponse(let server) = answer.pdu else { throw unexpected(answer.bytes, to: .exchangeMTURequest) }
        mtu = max(Self.defaultMTU, min(offer, Int(server)))
        return mtu
    }

    /// Read By Group Type (primary service) from handle 1 on, each time after the last group's
    /// end, until the device answers Attribute Not Found.
    package func discoverPrimaryServices() throws(BLEError) -> [GATTService] {
        var services: [GATTService] = []
        var start: UInt16 = 0x0001
        while true {
            let answer: Answer
            do {
                answer = try request(.readByGroupTypeRequest(start: start, end: 0xFFFF, type: .primaryService))
            } catch {
                if Self.isEndOfRange(error) { break }
                throw error
            }
            guard case .readByGroupTypeResponse(let groups) = answer.pdu else {
                throw unexpected(answer.bytes, to: .readByGroupTypeRequest)
            }
            for group in groups {
                guard let uuid = BluetoothUUID(littleEndian: group.value), group.value.count != 4 else {
                    throw .malformedPDU(bytes: answer.bytes, problem: "a service UUID of \(group.value.count) bytes")
                }
                guard group.end >= group.start, group.start >= start else {
                    throw .malformedPDU(
                        bytes: answer.bytes,
                        problem: "service range \(handleText(group.start))–\(handleText(group.end)) does not follow \(handleText(start))")
                }
                services.append(GATTService(uuid: uuid, startHandle: group.start, endHandle: group.end))
            }
            guard let last = groups.last?.end, last < 0xFFFF else { break }
            start = last + 1
        }
        return services
    }

    /// Read By Type (characteristic declaration) over the service's range, continuing after the
    /// last declaration; each characteristic ends before the next declaration.
    package func discoverCharacteristics(of service: GATTService) throws(BLEError) -> [GATTCharacteristic] {
        var found: [GATTCharacteristic] = []
        var start = service.startHandle
        while start <= service.endHandle {
            let answer: Answer
            do {
                answer = try request(.readByTypeRequest(start: start, end: service.endHandle, type: .characteristicDeclaration))
            } catch {
                if Self.isEndOfRange(error) { break }
                throw error
            }
            guard case .readByTypeResponse(let entries) = answer.pdu else { throw unexpected(answer.bytes, to: .readByTypeRequest) }
            for entry in entries {
                let value = entry.value
                guard value.count == 5 || value.count == 19, let uuid = BluetoothUUID(littleEndian: value[3...]) else {
                    throw .malformedPDU(bytes: answer.bytes, problem: "a characteristic declaration of \(value.count) bytes (expected 5 or 19)")
                }
                guard entry.handle >= start, entry.handle <= service.endHandle else {
                    throw .malformedPDU(
                        bytes: answer.bytes, problem: "declaration handle \(handleText(entry.handle)) outside the range asked for")
                }
                found.append(
                    GATTCharacteristic(
                        uuid: uuid, declarationHandle: entry.handle, valueHandle: UInt16(value[1]) | UInt16(value[2]) << 8,
                        properties: GATTCharacteristicProperties(rawValue: value[0]), endHandle: service.endHandle))
            }
            guard let last = entries.last?.handle, last < service.endHandle else { break }
            start = last + 1
        }
        for index in found.indices.dropLast() {
            found[index].endHandle = found[index + 1].declarationHandle - 1
        }
        return found
    }

    /// Find Information from the handle after the value to the characteristic's end, when there
    /// is room for a descriptor (never assuming the CCCD is value + 1).
    package func discoverDescriptors(of characteristic: GATTCharacteristic) throws(BLEError) -> [GATTDescriptor] {
        var found: [GATTDescriptor] = []
        guard characteristic.valueHandle < characteristic.endHandle else { return [] }
        var start = characteristic.valueHandle + 1
        while start <= characteristic.endHandle {
            let answer: Answer
            do {
                answer = try request(.findInformationRequest(start: start, end: characteristic.endHandle))
            } catch {
                if Self.isEndOfRange(error) { break }
                throw error
            }
            guard case .findInformationResponse(let entries) = answer.pdu else {
                throw unexpected(answer.bytes, to: .findInformationRequest)
            }
            for entry in entries {
                guard entry.handle >= start, entry.handle <= characteristic.endHandle else {
                    throw .malformedPDU(bytes: answer.bytes, problem: "descriptor handle \(handleText(entry.handle)) outside the range asked for")
                }
                found.append(GATTDescriptor(uuid: entry.uuid, handle: entry.handle))
            }
            guard let last = entries.last?.handle, last < characteristic.endHandle else { break }
            start = last + 1
        }
        return found
    }

    package func read(handle: UInt16) throws(BLEError) -> GATTValue {
        let answer = try request(.readRequest(handle: handle))
        guard case .readResponse(var value) = answer.pdu else { throw unexpected(answer.bytes, to: .readRequest) }
        // A full PDU may mean more follows: continue with Read Blob until a short part.
        var part = value
        // An attribute value is at most 512 bytes (Core Specification Vol 3, Part F, 3.2.9).
        while part.count == mtu - 1, value.count < Self.maximumAttributeLength {
            let more: Answer
            do {
                more = try request(.readBlobRequest(handle: handle, offset: UInt16(clamping: value.count)))
            } catch {
                if case .attError(_, _, let code) = error, code == .attributeNotLong || code == .invalidOffset { break }
                throw error
            }
            guard case .readBlobResponse(let next) = more.pdu else { throw unexpected(more.bytes, to: .readBlobRequest) }
            part = next
            value += next
        }
        return GATTValue(bytes: value, hostTime: answer.hostTime)
    }

    package func write(_ value: [UInt8], handle: UInt16) throws(BLEError) {
        try checkLength(value, handle: handle)
        let answer = try request(.writeRequest(handle: handle, value: value))
        guard case .writeResponse = answer.pdu else { throw unexpected(answer.bytes, to: .writeRequest) }
    }

    package func writeWithoutResponse(_ value: [UInt8], handle: UInt16) throws(BLEError) {
        try checkLength(value, handle: handle)
        if let failure { throw failure }
        try transmit(ATTPDU.writeCommand(handle: handle, value: value).bytes)
    }

    package func nextNotification(timeout: Duration) throws(BLEError) -> GATTNotification? {
        if !pending.isEmpty { return pending.removeFirst() }
        if let failure { throw failure }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while pending.isEmpty {
            guard let incoming = try receive(until: deadline, clock: clock) else { return nil }
            if let response = try dispatch(incoming) {
                throw .unexpectedPDU(expected: "a notification or indication", received: response.bytes)
            }
        }
        return pending.removeFirst()
    }

    package func disconnect() {
        bearer.close()
        if failure == nil { failure = .disconnected("closed by glucobridge") }
    }

    // MARK: the request/response cycle

    private struct Answer {
        var pdu: ATTPDU
        var bytes: [UInt8]
        var hostTime: Date
    }

    /// Sends `pdu` and returns its answer; an Error Response becomes `.attError`, after one retry
    /// per security level the bearer could raise.
    private func request(_ pdu: ATTPDU) throws(BLEError) -> Answer {
        if let failure { throw failure }
        let bytes = pdu.bytes
        // Security rises at most from low through medium and high to FIPS: three retries.
        var raises = 0
        while true {
            try transmit(bytes)
            let answer = try awaitAnswer(to: bytes)
            if case .errorResponse(_, let handle, let code) = answer.pdu {
                if code.needsSecurity, raises < 3, try bearer.raiseSecurity(after: code) {
                    raises += 1
                    continue
                }
                throw .attError(request: pdu.opcode, handle: handle, code: code)
            }
            return answer
        }
    }

    private func awaitAnswer(to request: [UInt8]) throws(BLEError) -> Answer {
        let clock = ContinuousClock()
        let deadline = clock.now + requestTimeout
        while true {
            guard let incoming = try receive(until: deadline, clock: clock) else {
                let seconds = Int(requestTimeout.components.seconds)
                bearer.close()
                failure = .disconnected("closed after the device left a request unanswered for \(seconds) s")
                throw .timeout(
                    device: peer.name.map { "\($0) (\(peer.address))" } ?? "\(peer.address)", request: Self.describe(request), seconds: seconds)
            }
            guard let response = try dispatch(incoming) else { continue }
            guard ATTOpcode.isAnswer(incoming.bytes, to: request[0]) else {
                throw .unexpectedPDU(expected: "the answer to the \(Self.describe(request))", received: incoming.bytes)
            }
            return Answer(pdu: response, bytes: incoming.bytes, hostTime: incoming.hostTime)
        }
    }

    private func receive(until deadline: ContinuousClock.Instant, clock: ContinuousClock) throws(BLEError) -> ATTBearerPDU? {
        let remaining = max(deadline - clock.now, .zero)
        do {
            return try bearer.receive(timeout: remaining)
        } catch {
            if case .disconnected = error { failure = error }
            throw error
        }
    }

    private func transmit(_ bytes: [UInt8]) throws(BLEError) {
        do {
            try bearer.send(bytes)
        } catch {
            if case .disconnected = error { failure = error }
            throw error
        }
    }

    /// Handles a PDU the device sent on its own (queues notifications, confirms indications,
    /// answers its requests); returns it decoded when it is a response for the caller.
    private func dispatch(_ incoming: ATTBearerPDU) throws(BLEError) -> ATTPDU? {
        let pdu = try ATTPDU(bytes: incoming.bytes)
        switch pdu {
        case .handleValueNotification(let handle, let value):
            pending.append(GATTNotification(handle: handle, value: value, isIndication: false, hostTime: incoming.hostTime))
        case .handleValueIndication(let handle, let value):
            try transmit(ATTPDU.handleValueConfirmation.bytes)
            pending.append(GATTNotification(handle: handle, value: value, isIndication: true, hostTime: incoming.hostTime))
        case .other(ATTOpcode.multipleHandleValueNotification.rawValue, let parameters):
            try queueMultiple(parameters, incoming)
        case .exchangeMTURequest(let theirs):
            let ours = min(max(preferredMTU, Self.defaultMTU), Self.maximumMTU)
            try transmit(ATTPDU.exchangeMTUResponse(serverMTU: UInt16(ours)).bytes)
            mtu = max(Self.defaultMTU, min(ours, Int(theirs)))
        default:
            guard let opcode = ATTOpcode(rawValue: pdu.opcode) else { return nil }
            switch opcode.kind {
            case .response:
                return pdu
            case .request:
                try transmit(ATTPDU.errorResponse(request: pdu.opcode, handle: 0, error: .requestNotSupported).bytes)
            default:
                break
            }
        }
        return nil
    }

    /// Multiple Handle Value Notification: (handle 2, length 2, value) repeated.
    private func queueMultiple(_ p: [UInt8], _ incoming: ATTBearerPDU) throws(BLEError) {
        var at = 0
        while at < p.count {
            guard p.count - at >= 4 else { throw .malformedPDU(bytes: incoming.bytes, problem: "a handle/length tuple is cut short") }
            let handle = UInt16(p[at]) | UInt16(p[at + 1]) << 8
            let length = Int(UInt16(p[at + 2]) | UInt16(p[at + 3]) << 8)
            guard p.count - at - 4 >= length else { throw .malformedPDU(bytes: incoming.bytes, problem: "a value claims \(length) missing bytes") }
            pending.append(
                GATTNotification(
                    handle: handle, value: Array(p[(at + 4)..<(at + 4 + length)]), isIndication: false, hostTime: incoming.hostTime))
            at += 4 + length
        }
    }

    private func checkLength(_ value: [UInt8], handle: UInt16) throws(BLEError) {
        guard value.count <= mtu - 3 else { throw .valueTooLong(handle: handle, length: value.count, maximum: mtu - 3) }
    }

    private func unexpected(_ bytes: [UInt8], to request: ATTOpcode) -> BLEError {
        .unexpectedPDU(expected: "the answer to a \(request)", received: bytes)
    }

    /// Attribute Not Found ends a discovery procedure successfully.
    private static func isEndOfRange(_ error: BLEError) -> Bool {
        if case .attError(_, _, let code) = error { return code == .attributeNotFound }
        return false
    }

    /// `Read Request for handle 0x0015`.
    static func describe(_ request: [UInt8]) -> String {
        let name = ATTOpcode.name(request[0])
        switch ATTOpcode(rawValue: request[0]) {
        case .readRequest, .readBlobRequest, .writeRequest, .writeCommand, .prepareWriteRequest:
            guard request.count >= 3 else { return name }
            return "\(name) for handle \(handleText(UInt16(request[1]) | UInt16(request[2]) << 8))"
        case .findInformationRequest, .readByTypeRequest, .readByGroupTypeRequest, .findByTypeValueRequest:
            guard request.count >= 5 else { return name }
            let start = UInt16(request[1]) | UInt16(request[2]) << 8
            let end = UInt16(request[3]) | UInt16(request[4]) << 8
            return "\(name) for handles \(handleText(start))–\(handleText(end))"
        default:
            return name
        }
    }
}
