import CaptureBluetooth
import Foundation
import Transport

/// Wraps a bearer and writes the session to a btsnoop file (datalink 1002, as Android writes it)
/// that `ReplayATTBearer`, Wireshark and `btmon -r` read: an LE Connection Complete for the peer,
/// one ACL packet on the ATT channel per PDU each way (sent PDUs stamped with `clock` when sent,
/// received ones with the time the bearer reports), and a Disconnection Complete at the end.
///
/// The file holds what crossed the ATT socket, not the controller's own HCI traffic (an L2CAP
/// socket does not see it): no ACL fragmentation, no SMP. A recording that cannot be written makes
/// the next call throw `.recordingFailed`; the device conversation itself is not disturbed.
package final class RecordingATTBearer: ATTBearer {
    package let wrapped: any ATTBearer
    private let writer: BTSnoopWriter
    private let clock: () -> Date
    private let handle: UInt16
    private var failure: BTSnoopError?
    private var finished = false

    /// The handle written when the bearer does not know the real one.
    package static let defaultHandle: UInt16 = 0x0040

    package var peer: BLEPeer { wrapped.peer }
    package var connectionHandle: UInt16? { wrapped.connectionHandle }

    /// Starts recording `bearer` into a new file at `url`.
    package init(recording bearer: any ATTBearer, to url: URL, clock: @escaping () -> Date = Date.init) throws(BLEError) {
        wrapped = bearer
        self.clock = clock
        handle = bearer.connectionHandle ?? Self.defaultHandle
        do {
            writer = try BTSnoopWriter(url: url, datalink: .hciUART)
            let opening = LEConnectionComplete(
                status: 0, handle: handle, role: .central, peerAddressType: bearer.peer.addressType,
                peerAddress: bearer.peer.address, interval: 0, latency: 0, supervisionTimeout: 0, isEnhanced: false)
            try writer.append(.event(code: HCIEvent.leMetaCode, parameters: opening.legacyEventParameters), direction: .received, at: clock())
        } catch {
            throw .recordingFailed(error.description)
        }
    }

    package func send(_ pdu: [UInt8]) throws(BLEError) {
        let time = clock()
        try wrapped.send(pdu)
        record(pdu, .sent, at: time)
        try checkRecording()
    }

    package func receive(timeout: Duration) throws(BLEError) -> ATTBearerPDU? {
        let received: ATTBearerPDU?
        do {
            received = try wrapped.receive(timeout: timeout)
        } catch {
            if case .disconnected = error { finish(reason: Self.remoteTerminated) }
            throw error
        }
        if let received { record(received.bytes, .received, at: received.hostTime) }
        try checkRecording()
        return received
    }

    package func raiseSecurity(after error: ATTErrorCode) throws(BLEError) -> Bool {
        try wrapped.raiseSecurity(after: error)
    }

    /// Closes the link and finishes the file.
    package func close() {
        wrapped.close()
        finish(reason: Self.localHostTerminated)
    }

    /// The error that stopped the recording, if any.
    package var recordingError: BTSnoopError? { failure }

    /// HCI reasons written in the Disconnection Complete.
    static let remoteTerminated: UInt8 = 0x13
    static let localHostTerminated: UInt8 = 0x16

    private func record(_ pdu: [UInt8], _ direction: HCIDirection, at time: Date) {
        guard failure == nil, !finished else { return }
        let frame = L2CAPFrame(channel: L2CAPFrame.attChannel, payload: pdu)
        do {
            for packet in frame.aclPackets(handle: handle, direction: direction, maxFragment: Int(UInt16.max)) {
                try writer.append(.acl(packet), direction: direction, at: time)
            }
        } catch {
            failure = error
        }
    }

    private func finish(reason: UInt8) {
        guard !finished else { return }
        finished = true
        do {
            if failure == nil {
                let parameters: [UInt8] = [0, UInt8(handle & 0xFF), UInt8(handle >> 8), reason]
                try writer.append(.event(code: HCIEvent.disconnectionCompleteCode, parameters: parameters), direction: .received, at: clock())
            }
            try writer.close()
        } catch {
            failure = failure ?? error
        }
    }

    private func checkRecording() throws(BLEError) {
        if let failure { throw .recordingFailed(failure.description) }
    }
}
