import CaptureUSB
import Foundation
import Transport

/// Plays a captured device to a driver holding its normal conversation: each request the driver
/// writes is looked up among the capture's OUT transfers, and the IN transfers that followed that
/// request in the capture become what the driver reads. Captures that glucobridge recorded itself
/// replay this way request for request.
///
/// Replay moves forward and serves each recorded answer at most once. A request is searched for
/// after the previous match (captures are in conversation order), else among the earlier requests
/// stepped over and not yet served (a driver asking in another order than the capturing program);
/// the position in the capture never moves back. A request the capture never holds throws
/// `requestNotInCapture` (the capture was made by a program that asked differently, and only a
/// passive decode of its exchanges can use it); a request whose every recorded occurrence was
/// served already throws `captureExhausted` (the capture is cut short). So a replay ends after at
/// most one request per recorded one, whatever the capture holds.
///
/// With a `budget`, every transfer after it is spent throws `deadlinePassed`, so an import given a
/// time limit stops at its next transfer.
///
/// A HID SET_REPORT is a request like an OUT transfer: the device's interrupt IN reports that
/// followed it are its answers. A transcript does not say how a report was sent, so its `out`
/// lines answer both an OUT-endpoint write and a SET_REPORT carrying the same bytes.
package final class ReplayUSBTransport: RecordedUSBTransport {
    package let device: USBDeviceDescription
    /// The device whose recorded traffic is played.
    package let recorded: RecordedUSBDevice
    private let dataTransfers: [USBTransfer]
    /// The capture positions of each OUT transfer's bytes, in order: a request is looked for
    /// only where the same bytes were sent, not through the whole capture (a USB disk's session
    /// holds thousands of transfers, and a command's wrapper and data are each looked up).
    private let requestPositions: [[UInt8]: [Int]]
    private var cursor = 0
    /// Capture positions of the requests served.
    private var served: Set<Int> = []
    private var lastMatchedPacket = 0
    private var pending: [USBTransfer] = []
    private var partial: (bytes: ArraySlice<UInt8>, transfer: USBTransfer)?
    private var claimed: Set<UInt8> = []
    private let deadline: ReplayDeadline?

    /// A device that speaks before the host writes anything (a meter announcing itself) has its
    /// leading IN transfers read first. `budget`, when given, is how long the replay may run.
    package convenience init(_ captured: RecordedUSBDevice, budget: Duration? = nil) {
        self.init(captured, deadline: budget.map { ReplayDeadline(budget: $0) })
    }

    /// Replays `captured` until `deadline`, when given (an import's limit shared by its devices).
    package init(_ captured: RecordedUSBDevice, deadline: ReplayDeadline?) {
        self.recorded = captured
        self.deadline = deadline
        device = recorded.description
        dataTransfers = recorded.conversation
        var positions: [[UInt8]: [Int]] = [:]
        for (index, transfer) in dataTransfers.enumerated() where transfer.direction == .out {
            positions[transfer.data, default: []].append(index)
        }
        requestPositions = positions
        let leading = dataTransfers.prefix { $0.direction == .in }
        pending = Array(leading)
        cursor = leading.count
    }

    /// The capture packet of the transfer the last read came from, for messages about its bytes.
    package private(set) var lastReadPacketNumber: Int?

    /// The interfaces the driver claimed.
    package var claimedInterfaces: Set<UInt8> { claimed }

    package func claimInterface(_ number: UInt8) throws(TransportError) {
        guard device.interfaces.contains(where: { $0.number == number }) else {
            throw .claimFailed(interface: number, reason: "the captured device has no interface \(number)")
        }
        claimed.insert(number)
    }

    package func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        try checkDeadline()
        try answer(bytes, sentAs: .endpoint(endpoint.address))
    }

    /// Finds the request in the capture and queues what the device answered to it.
    private func answer(_ bytes: [UInt8], sentAs route: Route) throws(TransportError) {
        guard let position = findRequest(bytes, route: route) else {
            if served.contains(where: { matches($0, bytes, route) }) {
                throw .captureExhausted(afterPacket: lastMatchedPacket)
            }
            throw .requestNotInCapture(request: bytes, afterPacket: lastMatchedPacket)
        }
        let request = dataTransfers[position]
        if request.status != 0 {
            throw TransportError.recorded(status: request.status, in: request)
        }
        lastMatchedPacket = request.packetNumber
        served.insert(position)
        var answers: [USBTransfer] = []
        var next = position + 1
        while next < dataTransfers.count, dataTransfers[next].direction == .in {
            answers.append(dataTransfers[next])
            next += 1
        }
        cursor = max(cursor, next)
        pending = answers
        partial = nil
    }

    package func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        try checkDeadline()
        if partial == nil {
            guard let transfer = pending.first else {
                throw .timeout(endpoint: endpoint.address)
            }
            pending.removeFirst()
            if transfer.status != 0 {
                throw TransportError.recorded(status: transfer.status, in: transfer)
            }
            partial = (transfer.data[...], transfer)
        }
        let (bytes, transfer) = partial!
        lastReadPacketNumber = transfer.packetNumber
        let chunk = bytes.prefix(maxLength)
        let rest = bytes.dropFirst(chunk.count)
        partial = rest.isEmpty ? nil : (rest, transfer)
        return USBRead(bytes: Array(chunk), hostTime: transfer.timestamp)
    }

    package func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        try checkDeadline()
        let request = USBTransfer(packetNumber: 0, endpoint: 0, type: .control, direction: setup.direction, setup: setup.bytes, data: data)
        if request.isConversation {
            try answer(data, sentAs: .setReport(setup))
            return USBRead(bytes: [], hostTime: nil)
        }
        if let recorded = recorded.transfers.first(where: {
            $0.type == .control && $0.setup == setup.bytes && ($0.direction == .in || $0.data == data)
        }) {
            if recorded.status != 0 {
                throw TransportError.recorded(status: recorded.status, in: recorded)
            }
            return USBRead(bytes: Array(recorded.data.prefix(Int(setup.length))), hostTime: recorded.timestamp)
        }
        throw .requestNotInCapture(request: setup.bytes + data, afterPacket: lastMatchedPacket)
    }

    package func close() {
        claimed.removeAll()
    }

    /// How the driver sent a request.
    private enum Route {
        /// To a bulk or interrupt OUT endpoint.
        case endpoint(UInt8)
        /// As a HID SET_REPORT control request.
        case setReport(USBControlSetup)
    }

    private func checkDeadline() throws(TransportError) {
        if let deadline, deadline.hasPassed { throw .deadlinePassed(deadline.budget) }
    }

    /// Whether the recorded transfer at `index` is `bytes` sent the way `route` says.
    private func matches(_ index: Int, _ bytes: [UInt8], _ route: Route) -> Bool {
        let transfer = dataTransfers[index]
        guard transfer.direction == .out, transfer.data == bytes else { return false }
        // A transcript line names neither endpoint nor setup: it matches either route.
        guard let recordedEndpoint = transfer.endpoint else { return true }
        switch route {
        case .endpoint(let address):
            return transfer.type != .control && recordedEndpoint == address
        case .setReport(let setup):
            return transfer.type == .control && transfer.setup == setup.bytes
        }
    }

    /// The capture position of `bytes` as a request not yet served: the first answered occurrence
    /// after the cursor, else the first answered one stepped over before it, else an unanswered
    /// one after the cursor (which replays as a device that does not answer).
    private func findRequest(_ bytes: [UInt8], route: Route) -> Int? {
        func candidate(_ index: Int) -> Bool {
            !served.contains(index) && matches(index, bytes, route)
        }
        func answered(_ index: Int) -> Bool {
            index + 1 < dataTransfers.count && dataTransfers[index + 1].direction == .in
        }
        // Only the positions where these bytes were sent can match (`matches` asks for them).
        let positions = requestPositions[bytes] ?? []
        let split = positions.firstIndex { $0 >= cursor } ?? positions.endIndex
        let forward = positions[split...]
        let earlier = positions[..<split]
        return forward.first(where: { candidate($0) && answered($0) })
            ?? earlier.first(where: { candidate($0) && answered($0) })
            ?? forward.first(where: candidate)
    }
}
