import CaptureBluetooth
import Foundation
import Transport

/// A clock the simulation moves by hand; its readings are the host times of a simulated session.
package final class SimulatedClock {
    package private(set) var now: Date

    package init(_ start: Date) {
        now = start
    }

    package func advance(by seconds: TimeInterval) {
        now = now.addingTimeInterval(seconds)
    }

    /// Moves to `time` unless the clock is already past it.
    package func advance(to time: Date) {
        now = max(now, time)
    }
}

/// A Bluetooth LE device in software: a GATT server behind the `ATTBearer` protocol, so the real
/// `ATTClient` and drivers talk to it as to a device (and `RecordingATTBearer` can write the
/// session as a btsnoop capture). It answers MTU exchange, primary service, characteristic and
/// descriptor discovery, reads (with Read Blob), writes and CCCD writes from its attribute table;
/// sends scheduled notifications and indications of subscribed characteristics at their times;
/// and lets a control point (e.g. a RACP) answer writes with emissions of its own. When the
/// schedule is done it disconnects, as a band taken off does.
///
/// Handles are given in table order from 0x0001: each service declaration, then per
/// characteristic its declaration, its value, and a CCCD when it notifies or indicates.
package final class SimulatedPeripheral: ATTBearer {
    package struct Characteristic: Sendable {
        package var uuid: BluetoothUUID
        package var properties: GATTCharacteristicProperties
        package var value: [UInt8]

        package init(_ uuid: UInt16, _ properties: GATTCharacteristicProperties, value: [UInt8] = []) {
            self.init(uuid: BluetoothUUID(uuid), properties, value: value)
        }

        /// A characteristic with any UUID (a vendor's 128-bit one).
        package init(uuid: BluetoothUUID, _ properties: GATTCharacteristicProperties, value: [UInt8] = []) {
            self.uuid = uuid
            self.properties = properties
            self.value = value
        }
    }

    package struct Service: Sendable {
        package var uuid: BluetoothUUID
        package var characteristics: [Characteristic]

        package init(_ uuid: UInt16, _ characteristics: [Characteristic]) {
            self.uuid = BluetoothUUID(uuid)
            self.characteristics = characteristics
        }

        /// A service with any UUID (a vendor's 128-bit one).
        package init(uuid: BluetoothUUID, _ characteristics: [Characteristic]) {
            self.uuid = uuid
            self.characteristics = characteristics
        }
    }

    /// A value the device sends on its own.
    package struct Emission: Sendable {
        /// When it is sent; nil: as soon as it is due (control-point answers).
        package var time: Date?
        package var characteristic: BluetoothUUID
        package var value: [UInt8]
        package var isIndication: Bool

        package init(at time: Date? = nil, _ characteristic: UInt16, _ value: [UInt8], indication: Bool = false) {
            self.time = time
            self.characteristic = BluetoothUUID(characteristic)
            self.value = value
            isIndication = indication
        }

        /// An emission of a characteristic with any UUID.
        package init(at time: Date? = nil, uuid: BluetoothUUID, _ value: [UInt8], indication: Bool = false) {
            self.time = time
            characteristic = uuid
            self.value = value
            isIndication = indication
        }
    }

    private enum Attribute {
        case service(BluetoothUUID, end: UInt16)
        case declaration(Characteristic, valueHandle: UInt16)
        case value(index: Int)
        case cccd(valueHandle: UInt16)

        var type: BluetoothUUID {
            switch self {
            case .service: .primaryService
            case .declaration: .characteristicDeclaration
            case .value: BluetoothUUID(0)
            case .cccd: .clientCharacteristicConfiguration
            }
        }
    }

    package let peer: BLEPeer
    package let connectionHandle: UInt16? = 0x0040
    package let clock: SimulatedClock
    /// The largest MTU the device accepts.
    package var serverMTU: Int
    /// Answers to writes on a characteristic (by UUID): the emissions that follow the write.
    package var controlPoints: [BluetoothUUID: ([UInt8]) -> [Emission]] = [:]
    /// Characteristics (by UUID) whose value and CCCD the device refuses to read or write, with
    /// the error it answers (e.g. insufficient authentication on an unpaired link).
    package var refusals: [BluetoothUUID: ATTErrorCode] = [:]
    /// Every PDU the client sent, in order.
    package private(set) var received: [[UInt8]] = []

    private var characteristics: [Characteristic] = []
    private var attributes: [Attribute] = []
    private var outbox: [[UInt8]] = []
    private var schedule: [Emission]
    private var nextScheduled = 0
    private var cccd: [UInt16: UInt16] = [:]
    private var mtu = 23
    private var closed = false

    /// A device with `services`; `schedule` lists what it sends on its own, in time order.
    package init(peer: BLEPeer, services: [Service], schedule: [Emission] = [], clock: SimulatedClock, serverMTU: Int = 247) {
        self.peer = peer
        self.clock = clock
        self.serverMTU = serverMTU
        self.schedule = schedule
        for service in services {
            let first = attributes.count
            attributes.append(.service(service.uuid, end: 0))
            for characteristic in service.characteristics {
                let valueHandle = UInt16(attributes.count + 2)
                attributes.append(.declaration(characteristic, valueHandle: valueHandle))
                attributes.append(.value(index: characteristics.count))
                characteristics.append(characteristic)
                if !characteristic.properties.isDisjoint(with: [.notify, .indicate]) {
                    attributes.append(.cccd(valueHandle: valueHandle))
                }
            }
            attributes[first] = .service(service.uuid, end: UInt16(attributes.count))
        }
    }

    /// The value handle of the first characteristic with `uuid`.
    package func valueHandle(of uuid: BluetoothUUID) -> UInt16? {
        for (offset, attribute) in attributes.enumerated() {
            if case .value(let index) = attribute, characteristics[index].uuid == uuid { return UInt16(offset + 1) }
        }
        return nil
    }

    /// Replaces the value a characteristic reads as.
    package func setValue(_ value: [UInt8], of uuid: UInt16) {
        for index in characteristics.indices where characteristics[index].uuid == BluetoothUUID(uuid) {
            characteristics[index].value = value
        }
    }

    package func send(_ pdu: [UInt8]) throws(BLEError) {
        guard !closed else { throw .disconnected("closed by glucobridge") }
        received.append(pdu)
        clock.advance(by: 0.005)
        let request: ATTPDU
        do {
            request = try ATTPDU(bytes: pdu)
        } catch {
            outbox.append(ATTPDU.errorResponse(request: pdu.first ?? 0, handle: 0, error: .invalidPDU).bytes)
            return
        }
        outbox += answer(request)
    }

    package func receive(timeout: Duration) throws(BLEError) -> ATTBearerPDU? {
        guard !closed else { throw .disconnected("closed by glucobridge") }
        if !outbox.isEmpty {
            clock.advance(by: 0.005)
            return ATTBearerPDU(bytes: outbox.removeFirst(), hostTime: clock.now)
        }
        while nextScheduled < schedule.count {
            let emission = schedule[nextScheduled]
            nextScheduled += 1
            guard let pdu = pdu(for: emission) else { continue }
            if let time = emission.time { clock.advance(to: time) }
            return ATTBearerPDU(bytes: pdu, hostTime: clock.now)
        }
        closed = true
        throw .disconnected("the device ended the connection")
    }

    /// The next answer to what the client sent, without moving on to scheduled emissions: how a
    /// device serving a real link drains its answers before it is idle.
    package func takeAnswer() -> [UInt8]? {
        outbox.isEmpty ? nil : outbox.removeFirst()
    }

    /// Whether the client has enabled notifications or indications of any characteristic.
    package var hasSubscriptions: Bool { cccd.values.contains { $0 != 0 } }

    package func raiseSecurity(after error: ATTErrorCode) throws(BLEError) -> Bool { false }

    package func close() {
        closed = true
    }

    // MARK: - The attribute server

    private func attribute(_ handle: UInt16) -> Attribute? {
        handle >= 1 && Int(handle) <= attributes.count ? attributes[Int(handle) - 1] : nil
    }

    private func value(of attribute: Attribute) -> [UInt8] {
        switch attribute {
        case .service(let uuid, _): uuid.littleEndianBytes
        case .declaration(let characteristic, let valueHandle):
            [characteristic.properties.rawValue, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8)] + characteristic.uuid.littleEndianBytes
        case .value(let index): characteristics[index].value
        case .cccd(let valueHandle): [UInt8(cccd[valueHandle, default: 0] & 0xFF), UInt8(cccd[valueHandle, default: 0] >> 8)]
        }
    }

    private func type(of attribute: Attribute) -> BluetoothUUID {
        if case .value(let index) = attribute { return characteristics[index].uuid }
        return attribute.type
    }

    private func error(_ request: ATTPDU, _ handle: UInt16, _ code: ATTErrorCode) -> [[UInt8]] {
        [ATTPDU.errorResponse(request: request.opcode, handle: handle, error: code).bytes]
    }

    /// The handles in `start...end` that exist.
    private func handles(_ start: UInt16, _ end: UInt16) -> [Int] {
        let first = max(Int(start), 1)
        let last = min(Int(end), attributes.count)
        return first <= last ? Array(first...last) : []
    }

    /// The handle and error of a read or write request on the value or CCCD of a refused
    /// characteristic.
    private func refusal(_ request: ATTPDU) -> (handle: UInt16, code: ATTErrorCode)? {
        let handle: UInt16
        switch request {
        case .readRequest(let h), .readBlobRequest(let h, _), .writeRequest(let h, _): handle = h
        default: return nil
        }
        var target = attribute(handle)
        if case .cccd(let valueHandle)? = target { target = attribute(valueHandle) }
        guard case .value(let index)? = target, let code = refusals[characteristics[index].uuid] else { return nil }
        return (handle, code)
    }

    private func answer(_ request: ATTPDU) -> [[UInt8]] {
        if let refused = refusal(request) { return error(request, refused.handle, refused.code) }
        switch request {
        case .exchangeMTURequest(let client):
            mtu = max(23, min(Int(client), serverMTU))
            return [ATTPDU.exchangeMTUResponse(serverMTU: UInt16(serverMTU)).bytes]
        case .readByGroupTypeRequest(let start, let end, let type) where type == .primaryService:
            var groups: [ATTGroupValue] = []
            for handle in handles(start, end) {
                guard case .service(let uuid, let groupEnd) = attributes[handle - 1] else { continue }
                let entry = ATTGroupValue(start: UInt16(handle), end: groupEnd, value: uuid.littleEndianBytes)
                if let first = groups.first, first.value.count != entry.value.count { break }
                guard 2 + (groups.count + 1) * (4 + entry.value.count) <= mtu else { break }
                groups.append(entry)
            }
            return groups.isEmpty ? error(request, start, .attributeNotFound) : [ATTPDU.readByGroupTypeResponse(groups).bytes]
        case .readByGroupTypeRequest(let start, _, _):
            return error(request, start, .unsupportedGroupType)
        case .readByTypeRequest(let start, let end, let type):
            var found: [ATTHandleValue] = []
            for handle in handles(start, end) where self.type(of: attributes[handle - 1]) == type {
                let entry = ATTHandleValue(handle: UInt16(handle), value: value(of: attributes[handle - 1]))
                if let first = found.first, first.value.count != entry.value.count { break }
                guard 2 + (found.count + 1) * (2 + entry.value.count) <= mtu else { break }
                found.append(entry)
            }
            return found.isEmpty ? error(request, start, .attributeNotFound) : [ATTPDU.readByTypeResponse(found).bytes]
        case .findInformationRequest(let start, let end):
            var found: [ATTHandleUUID] = []
            for handle in handles(start, end) {
                guard 2 + (found.count + 1) * 4 <= mtu else { break }
                found.append(ATTHandleUUID(handle: UInt16(handle), uuid: type(of: attributes[handle - 1])))
            }
            return found.isEmpty ? error(request, start, .attributeNotFound) : [ATTPDU.findInformationResponse(found).bytes]
        case .readRequest(let handle), .readBlobRequest(let handle, _):
            guard let attribute = attribute(handle) else { return error(request, handle, .invalidHandle) }
            if case .value(let index) = attribute, !characteristics[index].properties.contains(.read) {
                return error(request, handle, .readNotPermitted)
            }
            var offset = 0
            if case .readBlobRequest(_, let blobOffset) = request { offset = Int(blobOffset) }
            let whole = value(of: attribute)
            guard offset <= whole.count else { return error(request, handle, .invalidOffset) }
            let part = Array(whole[offset..<min(whole.count, offset + mtu - 1)])
            return [offset == 0 ? ATTPDU.readResponse(value: part).bytes : ATTPDU.readBlobResponse(value: part).bytes]
        case .writeRequest(let handle, let value), .writeCommand(let handle, let value):
            let answerWrite = request.opcode == ATTOpcode.writeRequest.rawValue
            guard let attribute = attribute(handle) else { return answerWrite ? error(request, handle, .invalidHandle) : [] }
            switch attribute {
            case .cccd(let valueHandle):
                guard value.count == 2 else { return answerWrite ? error(request, handle, .invalidAttributeValueLength) : [] }
                cccd[valueHandle] = UInt16(value[0]) | UInt16(value[1]) << 8
                return answerWrite ? [ATTPDU.writeResponse.bytes] : []
            case .value(let index) where !characteristics[index].properties.isDisjoint(with: [.write, .writeWithoutResponse]):
                let followUp = controlPoints[characteristics[index].uuid]?(value) ?? []
                if controlPoints[characteristics[index].uuid] == nil { characteristics[index].value = value }
                return (answerWrite ? [ATTPDU.writeResponse.bytes] : []) + followUp.compactMap(pdu(for:))
            default:
                return answerWrite ? error(request, handle, .writeNotPermitted) : []
            }
        case .handleValueConfirmation:
            return []
        default:
            return error(request, 0, .requestNotSupported)
        }
    }

    /// The PDU for an emission, or nil when the client has not subscribed to it.
    private func pdu(for emission: Emission) -> [UInt8]? {
        guard let handle = valueHandle(of: emission.characteristic) else { return nil }
        let wanted: UInt16 = emission.isIndication ? 0x0002 : 0x0001
        guard cccd[handle, default: 0] & wanted != 0 else { return nil }
        let value = Array(emission.value.prefix(mtu - 3))
        return emission.isIndication
            ? ATTPDU.handleValueIndication(handle: handle, value: value).bytes
            : ATTPDU.handleValueNotification(handle: handle, value: value).bytes
    }
}
