import Transport

/// A complete L2CAP basic frame: channel and payload [BlueZ monitor/l2cap.c].
public struct L2CAPFrame: Sendable, Equatable {
    /// The channel ID: 0x0004 ATT, 0x0005 LE signalling, 0x0006 SMP on LE links.
    public var channel: UInt16
    public var payload: [UInt8]
    /// How many ACL packets carried the frame.
    package var fragments: Int

    public static let attChannel: UInt16 = 0x0004
    package static let leSignallingChannel: UInt16 = 0x0005
    package static let smpChannel: UInt16 = 0x0006

    package init(channel: UInt16, payload: [UInt8], fragments: Int = 1) {
        self.channel = channel
        self.payload = payload
        self.fragments = fragments
    }

    /// The ACL packets that carry this frame from `direction`'s side when each packet holds at
    /// most `maxFragment` data bytes: a start fragment (0b00 from the host, 0b10 from the
    /// controller) and continuations.
    package func aclPackets(handle: UInt16, direction: HCIDirection, maxFragment: Int = 27) -> [HCIACLPacket] {
        var frame: [UInt8] = []
        frame.appendLE(UInt16(truncatingIfNeeded: payload.count))
        frame.appendLE(channel)
        frame += payload
        let start = direction == .sent ? HCIACLPacket.startNonFlushable : HCIACLPacket.startFlushable
        var packets: [HCIACLPacket] = []
        var at = 0
        repeat {
            let end = Swift.min(at + Swift.max(maxFragment, 1), frame.count)
            packets.append(HCIACLPacket(handle: handle, boundary: at == 0 ? start : HCIACLPacket.continuation, data: Array(frame[at..<end])))
            at = end
        } while at < frame.count
        return packets
    }
}

/// Rebuilds L2CAP frames from the ACL fragments of one connection in one direction
/// [noble lib/hci-socket/hci.js `onSocketData`; BlueZ monitor/l2cap.c]: a start fragment
/// opens a frame of the length its basic header announces, continuations append, the frame is
/// delivered when complete.
public struct L2CAPReassembler: Sendable {
    private var buffer: [UInt8] = []
    private var fragments = 0
    private var expected: Int?
    /// Continuation fragments that arrived with no frame open (after a record the capture cut,
    /// or the capture starting mid-frame); they are dropped.
    package private(set) var orphanFragments = 0

    public init() {}

    /// Whether a frame is partly received.
    package var isPending: Bool { expected != nil || !buffer.isEmpty }

    /// Feeds one ACL packet; returns the frame it completes, if any. A start fragment while a
    /// frame is still incomplete, or fragments carrying more bytes than the frame's length, are
    /// errors.
    public mutating func add(_ packet: HCIACLPacket) throws(HCIDecodeError) -> L2CAPFrame? {
        if packet.isStart {
            if isPending {
                throw HCIDecodeError(
                    "an ACL start fragment on handle \(Hex.literal(packet.handle)) while the previous L2CAP frame still misses "
                        + "\(missing) bytes")
            }
            buffer = packet.data
            fragments = 1
        } else {
            guard isPending else {
                orphanFragments += 1
                return nil
            }
            buffer += packet.data
            fragments += 1
        }
        if expected == nil, buffer.count >= 4 {
            expected = 4 + Int(UInt16(buffer[0]) | UInt16(buffer[1]) << 8)
        }
        guard let expected else { return nil }
        if buffer.count > expected {
            let count = buffer.count
            reset()
            throw HCIDecodeError(
                "ACL fragments on handle \(Hex.literal(packet.handle)) carry \(count) bytes for an L2CAP frame of \(expected)")
        }
        guard buffer.count == expected else { return nil }
        let frame = L2CAPFrame(channel: UInt16(buffer[2]) | UInt16(buffer[3]) << 8, payload: Array(buffer[4...]), fragments: fragments)
        reset()
        return frame
    }

    /// Drops a partly received frame (its connection closed, or one of its records was cut).
    package mutating func reset() {
        buffer = []
        fragments = 0
        expected = nil
    }

    private var missing: Int { (expected ?? 4) - buffer.count }
}
