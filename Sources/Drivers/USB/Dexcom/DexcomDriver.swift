import Foundation
import Model
import Pipeline
import Transport

/// Dexcom G4, G5 and G6 receivers (USB 22a3:0047): a CDC-ACM serial protocol over a bulk
/// endpoint pair. Read-only: every request is built from `DexcomCommand`, which holds reads only.
public enum DexcomDriver: USBDeviceDriver {
    package static let family: DeviceFamily = "dexcom"
    package static let products = [USBProduct(vendorID: 0x22A3, productID: 0x0047, name: "Dexcom G4/G5/G6 receiver")]
    package static let capabilities: DeviceCapabilities = [.glucose, .storedHistory, .passiveDecode]
    package static let summary = "glucose (EGV) and fingerstick (meter) records, read-only"

    /// How long one read may wait for the receiver.
    package static let readTimeout: Duration = .seconds(2)
    /// The read buffer: a whole multiple of the 64-byte packet size, enough for a one-page reply.
    static let readLength = 2176
    /// The most pages a partition may hold: 16,384 pages of 38 EGV records is over 600,000
    /// readings, nearly six years of five-minute readings, more than a receiver's database keeps.
    /// A wider range (a damaged or hostile reply) is refused before any page is read.
    static let maximumPagesPerPartition: UInt32 = 16_384
    /// The most reads for one reply: a frame is at most `DexcomPacket.maximumLength` bytes, so a
    /// receiver that sends that many reads (even of one byte each) without completing a frame is
    /// not answering.
    static var maximumReadsPerReply: Int { DexcomPacket.maximumLength }

    package static func download(over transport: any USBTransport, context: DownloadContext) throws(DexcomError) -> GlucoseDownload {
        let session = try readSession(over: transport, context: context)
        return try normalise(session)
    }

    package static func decode(recorded device: RecordedUSBDevice) throws(DexcomError) -> GlucoseDownload {
        try normalise(decodeSession(device.exchanges))
    }

    /// Decodes recorded exchanges, skipping every EGV and meter page whose records are all at or
    /// below the store's cursor for its stream (told from the page header alone).
    package static func decode(recorded device: RecordedUSBDevice, context: DownloadContext) throws(DexcomError) -> GlucoseDownload {
        try normalise(decodeSession(device.exchanges, context: context))
    }

    /// Holds the receiver's conversation: identity, clock, the EGV and meter page ranges, then the
    /// EGV and meter pages from the newest back to the first one holding a record newer than the
    /// cursor. Both ranges are asked before any page, so a replayed capture that cannot answer the
    /// conversation is found out before its pages are decoded.
    package static func readSession(over transport: any USBTransport, context: DownloadContext) throws(DexcomError) -> DexcomDownload {
        let link = try DexcomLink(transport: transport)
        var session = DexcomDownload()
        try link.exchange(.ping, into: &session)
        try link.exchange(.readFirmwareHeader, into: &session)
        try link.exchange(.readDatabasePartitionInfo, into: &session)
        if let range = try link.pageRange(.manufacturingData, into: &session) {
            try link.exchange(
                .readDatabasePages, [DexcomPartition.manufacturingData.rawValue] + range.upperBound.littleEndianBytes + [1], into: &session)
        }
        try link.exchange(.readDisplayTimeOffset, into: &session)
        try link.exchange(.readSystemTime, into: &session)
        let stored = session.source.map(context.cursors) ?? [:]
        let partitions = [DexcomPartition.egvData, .meterData]
        let ranges = try partitions.map { partition throws(DexcomError) in try link.pageRange(partition, into: &session) }
        for (partition, range) in zip(partitions, ranges) {
            guard let range else { continue }
            let cursor = partition.stream.flatMap { stored[$0] }
            guard range.upperBound - range.lowerBound < maximumPagesPerPartition else {
                throw DexcomError.unexpectedReply(
                    location: WireLocation(message: "reply to ReadDatabasePageRange(\(partition))"),
                    reason: "pages \(range.lowerBound)–\(range.upperBound) are more than the \(maximumPagesPerPartition) a receiver holds")
            }
            var page = range.upperBound
            while true {
                try link.exchange(.readDatabasePages, [partition.rawValue] + page.littleEndianBytes + [1], into: &session)
                context.progress.report(
                    "\(partition.stream?.rawValue ?? "\(partition)") pages", done: Int(range.upperBound - page) + 1,
                    total: Int(range.upperBound - range.lowerBound) + 1)
                guard let firstIndex = session.pageFirstIndex[partition.rawValue]?[page] else { break }
                if page == range.lowerBound { break }
                if let cursor, Int64(firstIndex) <= cursor { break }
                page -= 1
            }
        }
        return session
    }

    /// Decodes recorded exchanges (see `USBDeviceDriver.decode(recorded:)`). Once the receiver's
    /// serial number is known, the context's cursors are asked once for its streams, and the EGV and meter
    /// pages wholly at or below them are checked (frame and header CRCs) but not decoded.
    package static func decodeSession(
        _ exchanges: [USBExchange], context: DownloadContext = .fresh
    ) throws(DexcomError) -> DexcomDownload {
        var session = DexcomDownload()
        var asked = false
        for exchange in exchanges {
            if !asked, let source = session.source {
                asked = true
                for (stream, cursor) in context.cursors(source) {
                    guard let partition = DexcomPartition.forStream(stream), let index = UInt32(exactly: cursor) else { continue }
                    session.storedThrough[partition.rawValue] = index
                }
            }
            // Texts for errors are only worked out for one: a long capture has thousands of exchanges.
            let packetNumber = exchange.request.packetNumber
            let location = { @Sendable in WireLocation(packet: packetNumber) }
            let request = try DexcomPacket.decode(exchange.request.data, location: location().with(message: "request"))
            guard !exchange.replies.isEmpty else {
                session.noteUnanswered(request: request, where: location())
                continue
            }
            let context = { @Sendable in
                let name =
                    DexcomCommand(rawValue: request.code).map { DexcomDownload.describe($0, request.payload) }
                    ?? "command 0x\(String(request.code, radix: 16, uppercase: true))"
                return location().with(message: "reply to \(name)")
            }
            if let failed = exchange.replies.first(where: { $0.status != 0 }) {
                throw DexcomError.transport(.recorded(status: failed.status, in: failed))
            }
            var assembler = DexcomPacketAssembler(location: context())
            for reply in exchange.replies { assembler.append(reply.data) }
            guard let reply = try assembler.nextPacket() else {
                throw DexcomError.incompleteReply(location: context(), received: assembler.bufferedCount, expected: assembler.pendingLength)
            }
            try session.absorb(request: request, reply: reply, hostTime: exchange.replies.last?.timestamp, where: location())
        }
        return session
    }

    /// Turns a session into device-neutral records: display-only records and special values
    /// become counted events; LO/HI become flags.
    public static func normalise(_ session: DexcomDownload) throws(DexcomError) -> GlucoseDownload {
        guard let source = session.source else { throw .noSerialNumber }
        let egv = session.egv.inIndexOrder()
        let meter = session.meter.inIndexOrder()
        var glucose: [DeviceGlucoseRecord] = []
        glucose.reserveCapacity(egv.count + meter.count)
        var events: [String: Int] = [:]
        for record in egv {
            if record.isDisplayOnly {
                events["display-only", default: 0] += 1
            } else if let special = record.specialValue {
                events[special.description, default: 0] += 1
            } else {
                glucose.append(
                    DeviceGlucoseRecord(
                        stream: "egv", index: Int64(record.index), deviceSeconds: Int64(record.systemSeconds),
                        displaySeconds: Int64(record.displaySeconds), value: Double(record.glucose), kind: .sensor,
                        flag: record.glucose < 40 ? .belowRange : record.glucose > 400 ? .aboveRange : nil,
                        trend: trend(record.trend), noise: record.noise == 0 ? nil : Int(record.noise)))
            }
        }
        for record in meter {
            guard record.mgdl >= 20 else {
                events["meter-value-below-20", default: 0] += 1
                continue
            }
            let lag = Int64(record.systemSeconds) - Int64(record.meterSeconds)
            glucose.append(
                DeviceGlucoseRecord(
                    stream: "meter", index: Int64(record.index), deviceSeconds: Int64(record.meterSeconds),
                    displaySeconds: Int64(record.displaySeconds) - lag, value: Double(record.mgdl), kind: .fingerstick))
        }
        var cursors = RecordCursors()
        if let last = egv.last { cursors.raise("egv", to: Int64(last.index)) }
        if let last = meter.last { cursors.raise("meter", to: Int64(last.index)) }
        var notes = session.unanswered.map { "no answer was recorded to \($0)" }
        for (code, count) in session.undecodedCommands.sorted(by: { $0.key < $1.key }) {
            notes.append("\(count) request\(count == 1 ? "" : "s") with command 0x\(String(code, radix: 16, uppercase: true)) not decoded")
        }
        return GlucoseDownload(
            source: source,
            clock: DeviceClock(
                epoch: Date(timeIntervalSince1970: TimeInterval(dexcomEpochOffsetFrom1970)), basis: .universal,
                deviceNow: session.systemTime.map(Int64.init), hostNow: session.systemTimeHostTime),
            glucose: glucose,
            recordsRead: egv.count + meter.count,
            events: events.sorted { $0.key < $1.key }.map { ImportEvent(name: $0.key, count: $0.value) },
            cursors: cursors,
            notes: notes)
    }

    static func trend(_ code: UInt8) -> Trend? {
        switch code {
        case 1: .doubleUp
        case 2: .singleUp
        case 3: .fortyFiveUp
        case 4: .flat
        case 5: .fortyFiveDown
        case 6: .singleDown
        case 7: .doubleDown
        case 8: .notComputable
        case 9: .rateOutOfRange
        default: nil
        }
    }
}

/// The receiver's bulk endpoint pair, claimed, with request/reply framing on top.
struct DexcomLink {
    let transport: any USBTransport
    let outEndpoint: USBEndpoint
    let inEndpoint: USBEndpoint

    /// Finds the CDC data interface (or, failing that, any interface with a bulk pair), claims
    /// it and the CDC control interface so the kernel's `cdc_acm` lets go of the device. A CDC
    /// data interface whose pair is not described as bulk is still taken: recordings made by
    /// glucobridge before its endpoint descriptors were fixed describe the bulk pair as interrupt.
    init(transport: any USBTransport) throws(DexcomError) {
        self.transport = transport
        let interfaces = transport.device.interfaces
        func pair(_ interface: USBInterface, bulkOnly: Bool) -> (out: USBEndpoint, in: USBEndpoint)? {
            let usable = interface.endpoints.filter { bulkOnly ? $0.type == .bulk : $0.type != .control }
            guard let out = usable.first(where: { $0.direction == .out }),
                let inward = usable.first(where: { $0.direction == .in })
            else { return nil }
            return (out, inward)
        }
        let isData = { (interface: USBInterface) in interface.interfaceClass == USBInterface.classCDCData }
        guard
            let (data, pair) = interfaces.lazy.filter(isData).compactMap({ i in pair(i, bulkOnly: true).map { (i, $0) } }).first
                ?? interfaces.lazy.compactMap({ i in pair(i, bulkOnly: true).map { (i, $0) } }).first
                ?? interfaces.lazy.filter(isData).compactMap({ i in pair(i, bulkOnly: false).map { (i, $0) } }).first
        else {
            throw .noDataInterface(device: transport.device.idString)
        }
        do {
            if let control = interfaces.first(where: { $0.interfaceClass == 0x02 }) {
                try transport.claimInterface(control.number)
            }
            try transport.claimInterface(data.number)
        } catch {
            throw .transport(error)
        }
        outEndpoint = pair.out
        inEndpoint = pair.in
    }

    /// Sends one request and folds the reply into `session`.
    func exchange(_ command: DexcomCommand, _ payload: [UInt8] = [], into session: inout DexcomDownload) throws(DexcomError) {
        let name = DexcomDownload.describe(command, payload)
        let context = WireLocation(message: "reply to \(name)")
        var assembler = DexcomPacketAssembler(location: context)
        var hostTime: Date?
        do {
            try transport.write(DexcomPacket.request(command, payload: payload), to: outEndpoint, timeout: DexcomDriver.readTimeout)
            for _ in 0...DexcomDriver.maximumReadsPerReply {
                if let reply = try assembler.nextPacket() {
                    try session.absorb(
                        request: DexcomPacket(code: command.rawValue, payload: payload), reply: reply,
                        hostTime: hostTime, where: "from the receiver")
                    return
                }
                let read = try transport.read(from: inEndpoint, maxLength: DexcomDriver.readLength, timeout: DexcomDriver.readTimeout)
                hostTime = read.hostTime
                assembler.append(read.bytes)
            }
            throw DexcomError.incompleteReply(location: context, received: assembler.bufferedCount, expected: assembler.pendingLength)
        } catch let error as TransportError {
            if case .timeout = error, assembler.bufferedCount > 0 {
                throw .incompleteReply(location: context, received: assembler.bufferedCount, expected: assembler.pendingLength)
            }
            throw .transport(error)
        } catch let error as DexcomError {
            throw error
        } catch {
            throw .transport(.transferFailed(endpoint: inEndpoint.address, reason: "\(error)"))
        }
    }

    /// The partition's page range, or nil when it is empty.
    func pageRange(_ partition: DexcomPartition, into session: inout DexcomDownload) throws(DexcomError) -> ClosedRange<UInt32>? {
        try exchange(.readDatabasePageRange, [partition.rawValue], into: &session)
        return session.pageRanges[partition.rawValue] ?? nil
    }
}
