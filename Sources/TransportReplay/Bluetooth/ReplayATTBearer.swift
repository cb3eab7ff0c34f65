import CaptureBluetooth
import Foundation
import Transport

/// Plays one captured LE connection to a GATT client holding its normal conversation, so that a
/// driver above `ATTClient` cannot tell the capture from a live device.
///
/// The capture's ATT stream is a timeline. Each PDU the client sends is matched against the PDUs
/// the capturing host sent: first the next unmatched one with the same bytes (in order, stepping
/// over recorded host PDUs the client does not repeat — their answers are dropped), else an earlier
/// stepped-over one (a driver discovering in another order than the capturing app). The device's
/// PDUs are served in capture order with their capture timestamps: answers to matched requests,
/// and notifications and indications up to the next recorded host PDU not yet matched (what the
/// device sent before the capturing host spoke again). When the whole stream is served, `receive`
/// reports the recorded disconnection (or the end of the capture) as `.disconnected`.
package final class ReplayATTBearer: ATTBearer {
    /// What `receive` does when nothing is due and the capturing host spoke next.
    package enum Pacing: Sendable, Equatable {
        /// Report nothing received (a timeout) until the client sends what the capturing host
        /// sent. Right for drivers that hold the recorded conversation (and for glucobridge's own
        /// recordings).
        case waitForClient
        /// Step over the capturing host's next PDUs and keep serving the device's notifications
        /// (answers to the stepped-over requests are dropped). Right for a driver that only
        /// listens to a capture made by another app that kept writing.
        case followDevice
    }

    package let peer: BLEPeer
    package let connectionHandle: UInt16?
    /// The captured connection being replayed.
    package let connection: LEConnection
    /// The capture's file name, for messages.
    package let file: String
    package var pacing: Pacing

    private enum Mark {
        case pending
        case matched
        case steppedOver
    }

    private let pdus: [CapturedATTPDU]
    private let isDevicePDU: [Bool]
    /// For each recorded host request, the index of the device PDU that answered it.
    private let answerOf: [Int: Int]
    /// For each answering device PDU, the request it answered.
    private let requestOf: [Int: Int]
    private var marks: [Mark]
    private var frontier = 0
    private var due: [Int] = []
    private var lastSent: [UInt8]?
    private var lastMatchedRecord = 0
    private var closed = false
    private var served = 0
    private let ending: String
    /// The capture time of the last PDU served or matched (the replay's clock).
    package private(set) var now: Date
    /// When the import's time is up: then every PDU throws `deadlinePassed`.
    private let deadline: ReplayDeadline?

    /// Replays `connection` from the capture `file`, until `deadline` when given.
    package init(
        connection: LEConnection, file: String, name: String? = nil, pacing: Pacing = .waitForClient, deadline: ReplayDeadline? = nil
    ) {
        self.deadline = deadline
        peer = BLEPeer(address: connection.peerAddress, addressType: connection.peerAddressType, name: name)
        connectionHandle = connection.handle
        self.connection = connection
        self.file = file
        self.pacing = pacing
        pdus = connection.att
        isDevicePDU = connection.att.map { $0.direction == .received }
        marks = Array(repeating: .pending, count: connection.att.count)
        now = connection.opened.date

        var answers: [Int: Int] = [:]
        var requests: [Int: Int] = [:]
        var open: Int?
        for (index, pdu) in connection.att.enumerated() {
            if pdu.direction == .sent {
                if let opcode = pdu.bytes.first.flatMap(ATTOpcode.init(rawValue:)), opcode.kind == .request { open = index }
            } else if let request = open, ATTOpcode.isAnswer(pdu.bytes, to: connection.att[request].bytes[0]) {
                answers[request] = index
                requests[index] = request
                open = nil
            }
        }
        answerOf = answers
        requestOf = requests

        if let reason = connection.disconnectReason, let closed = connection.closedAtRecord {
            ending = "the device disconnected (\(HCIEvent.reasonName(reason)), \(file) record \(closed))"
        } else {
            ending = "the capture \(file) ends while the connection is still open"
        }
    }

    /// Replays the first connection in `capture` that carries ATT (to `address`, when given); the
    /// peer's name comes from its advertising reports in the capture.
    package convenience init(
        capture: LECapture, address: BluetoothAddress? = nil, pacing: Pacing = .waitForClient, budget: Duration? = nil
    ) throws(BLEError) {
        let candidates = capture.attConnections.filter { address == nil || $0.peerAddress == address }
        guard let connection = candidates.first else {
            let seen = capture.connections.map { "\($0.peerAddress) (handle \(handleText($0.handle)), \($0.att.count) ATT PDUs)" }
            let target = address.map { " to \($0)" } ?? ""
            throw .noConnectionInCapture(
                file: capture.name,
                detail: "no LE connection\(target) carrying ATT in this capture (connections seen: "
                    + (seen.isEmpty ? "none" : seen.joined(separator: ", ")) + ")")
        }
        self.init(
            connection: connection, file: capture.name, name: capture.localName(of: connection.peerAddress), pacing: pacing,
            deadline: budget.map { ReplayDeadline(budget: $0) })
    }

    /// Reads the btsnoop file at `url` and replays its first ATT connection (to `address`).
    /// Throws the file's `BTSnoopError`, or `BLEError.noConnectionInCapture`.
    package convenience init(contentsOf url: URL, address: BluetoothAddress? = nil, pacing: Pacing = .waitForClient) throws {
        try self.init(capture: LECapture.read(contentsOf: url), address: address, pacing: pacing)
    }

    package func send(_ pdu: [UInt8]) throws(BLEError) {
        guard !closed else { throw .disconnected("closed by glucobridge") }
        try checkDeadline()
        walk()
        func sameHostPDU(_ index: Int, _ mark: Mark) -> Bool {
            !isDevicePDU[index] && marks[index] == mark && pdus[index].bytes == pdu
        }
        if let match = (frontier..<pdus.count).first(where: { sameHostPDU($0, .pending) }) {
            for index in frontier..<match where !isDevicePDU[index] && marks[index] == .pending {
                marks[index] = .steppedOver
            }
            matched(match)
            walk()
        } else if let earlier = (0..<frontier).first(where: { sameHostPDU($0, .steppedOver) }) {
            matched(earlier)
            if let answer = answerOf[earlier], answer < frontier { due.append(answer) }
        } else {
            throw .requestNotInCapture(file: file, pdu: pdu, afterRecord: lastMatchedRecord)
        }
        lastSent = pdu
    }

    private func checkDeadline() throws(BLEError) {
        if let deadline, deadline.hasPassed { throw .deadlinePassed(deadline.budget) }
    }

    package func receive(timeout: Duration) throws(BLEError) -> ATTBearerPDU? {
        try checkDeadline()
        guard !closed else { throw .disconnected("closed by glucobridge") }
        walk()
        while due.isEmpty, frontier < pdus.count, pacing == .followDevice {
            marks[frontier] = .steppedOver
            walk()
        }
        guard !due.isEmpty else {
            if frontier >= pdus.count { throw .disconnected(ending) }
            return nil
        }
        let pdu = pdus[due.removeFirst()]
        served += 1
        now = max(now, pdu.hostTime)
        return ATTBearerPDU(bytes: pdu.bytes, hostTime: pdu.hostTime)
    }

    /// True when the capturing host repeated the refused request next (it raised security and
    /// retried); otherwise the device's refusal stands.
    package func raiseSecurity(after error: ATTErrorCode) throws(BLEError) -> Bool {
        walk()
        guard let lastSent, frontier < pdus.count, !isDevicePDU[frontier] else { return false }
        return pdus[frontier].bytes == lastSent
    }

    package func close() {
        closed = true
    }

    /// How much of the capture a replay used.
    package struct Progress: Sendable, Equatable {
        /// Device PDUs delivered to the client.
        package var served: Int
        /// Host PDUs the client sent that matched the capture.
        package var matched: Int
        /// Host PDUs the client did not repeat.
        package var steppedOver: Int
        /// All ATT PDUs of the connection.
        package var total: Int
    }

    package var progress: Progress {
        Progress(
            served: served, matched: marks.filter { $0 == .matched }.count, steppedOver: marks.filter { $0 == .steppedOver }.count, total: pdus.count)
    }

    private func matched(_ index: Int) {
        marks[index] = .matched
        lastMatchedRecord = pdus[index].record
        now = max(now, pdus[index].hostTime)
    }

    /// Moves the frontier over device PDUs (making due the ones the client should see) and host
    /// PDUs already matched or stepped over, stopping at the next pending host PDU.
    private func walk() {
        while frontier < pdus.count {
            if isDevicePDU[frontier] {
                if let request = requestOf[frontier] {
                    if marks[request] == .matched { due.append(frontier) }
                } else if ATTOpcode(rawValue: pdus[frontier].bytes.first ?? 0)?.kind != .response {
                    due.append(frontier)
                }
            } else if marks[frontier] == .pending {
                return
            }
            frontier += 1
        }
    }
}
