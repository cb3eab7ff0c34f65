import Foundation
import Model

/// The layout of one database partition, as the receiver's PartitionInfo describes it.
package struct DexcomPartitionLayout: Sendable, Equatable {
    package var revision: UInt8
    /// Bytes per record, CRC included.
    package var recordLength: Int
}

/// Everything learnt from one session with a receiver, however it was held: live, replayed
/// request by request, or decoded from another program's recorded exchanges.
public struct DexcomDownload: Sendable {
    /// Attributes of the FirmwareHeader element (`ProductId`, `FirmwareVersion`, …).
    package var firmware: [String: String] = [:]
    package var partitions: [UInt8: DexcomPartitionLayout] = [:]
    /// Attributes of the newest ManufacturingParameters record (`SerialNumber`, …).
    package var manufacturing: [String: String] = [:]
    /// The receiver's system clock (seconds since 2009-01-01) when it was read.
    package var systemTime: UInt32?
    /// The host's clock when the system time arrived, when known.
    package var systemTimeHostTime: Date?
    package var displayTimeOffset: Int32?
    /// Page ranges by partition, as the receiver reported them (nil: the partition is empty).
    package var pageRanges: [UInt8: ClosedRange<UInt32>?] = [:]
    /// EGV records by running index.
    package var egv = DexcomRecordsByIndex<DexcomEGVRecord>()
    /// Meter records by running index.
    package var meter = DexcomRecordsByIndex<DexcomMeterRecord>()
    /// Database pages decoded (a page read twice counts twice).
    package var pagesDecoded = 0
    /// Pages not decoded because every record on them is at or below `storedThrough`.
    package var pagesSkipped = 0
    /// By partition: the highest record index the store already holds. A page whose records are
    /// all at or below it is checked (header CRC) but its records are not decoded.
    package var storedThrough: [UInt8: UInt32] = [:]
    /// The running index of the first record of each decoded page, by partition and page number.
    package var pageFirstIndex: [UInt8: [UInt32: UInt32]] = [:]
    /// Requests that got no answer, described.
    package var unanswered: [String] = []
    /// Requests whose command glucobridge does not decode (e.g. vendor extensions), by id.
    package var undecodedCommands: [UInt8: Int] = [:]

    public init() {}

    /// The receiver, once its manufacturing record has been read.
    package var source: DeviceSource? {
        guard let serial = manufacturing["SerialNumber"], !serial.isEmpty else { return nil }
        return DeviceSource(family: DexcomDriver.family, serial: serial, model: firmware["ProductId"])
    }

    /// The record length of `partition` at `revision`: PartitionInfo when it describes that
    /// revision, else the known layouts.
    package func recordLength(partition: UInt8, revision: UInt8) -> Int? {
        if let layout = partitions[partition], layout.revision == revision {
            return layout.recordLength
        }
        return DexcomRecordLayout.defaultLength(partition: partition, revision: revision)
    }

    /// Takes in one request and the receiver's reply to it.
    /// - Parameters:
    ///   - request: the request frame as sent.
    ///   - reply: the receiver's reply frame.
    ///   - hostTime: the host's clock when the reply arrived.
    ///   - where: where the exchange is, for errors (e.g. capture packet 119).
    ///   (Error texts are only worked out for an error.)
    public mutating func absorb(
        request: DexcomPacket, reply: DexcomPacket, hostTime: Date?, where location: @autoclosure () -> WireLocation
    ) throws(DexcomError) {
        guard let command = DexcomCommand(rawValue: request.code) else {
            undecodedCommands[request.code, default: 0] += 1
            return
        }
        guard reply.code == DexcomReplyCode.ack.rawValue else {
            let code = DexcomReplyCode(rawValue: reply.code)?.description ?? "code \(reply.code)"
            throw .replyRejected(command: Self.describe(command, request.payload), location: location(), code: code)
        }
        let payload = reply.payload
        var context: WireLocation { location().with(message: "reply to \(Self.describe(command, request.payload))") }
        switch command {
        case .readFirmwareHeader:
            firmware = DexcomXML.attributes(of: payload)
        case .readDatabasePartitionInfo:
            for element in DexcomXML.elements(in: payload) where element.name == "Partition" {
                guard let id = element.attributes["Id"].flatMap(UInt8.init),
                    let revision = element.attributes["RecordRevision"].flatMap(UInt8.init),
                    let length = element.attributes["RecordLength"].flatMap(Int.init)
                else { continue }
                partitions[id] = DexcomPartitionLayout(revision: revision, recordLength: length)
            }
        case .readDatabasePageRange:
            guard payload.count == 8, let partition = request.payload.first else {
                throw .unexpectedReply(location: context, reason: "\(payload.count) bytes instead of 8")
            }
            let first = payload.u32le(at: 0)
            let last = payload.u32le(at: 4)
            pageRanges[partition] = first == 0xFFFF_FFFF || last < first ? .some(nil) : first...last
        case .readDatabasePages:
            guard request.payload.count == 6 else {
                throw .unexpectedReply(location: context, reason: "the request has \(request.payload.count) parameter bytes instead of 6")
            }
            let count = Int(request.payload[5])
            guard payload.count == count * DexcomPage.size else {
                throw .unexpectedReply(location: context, reason: "\(payload.count) bytes for \(count) pages of \(DexcomPage.size)")
            }
            for i in 0..<count {
                let bytes = payload[(i * DexcomPage.size)..<((i + 1) * DexcomPage.size)]
                if try isStored(bytes) {
                    pagesSkipped += 1
                    continue
                }
                let page = try DexcomPage(bytes) { recordLength(partition: $0, revision: $1) }
                absorb(page)
            }
        case .readSystemTime:
            guard payload.count == 4 else { throw .unexpectedReply(location: context, reason: "\(payload.count) bytes instead of 4") }
            systemTime = payload.u32le(at: 0)
            systemTimeHostTime = hostTime
        case .readDisplayTimeOffset:
            guard payload.count == 4 else { throw .unexpectedReply(location: context, reason: "\(payload.count) bytes instead of 4") }
            displayTimeOffset = payload.i32le(at: 0)
        default:
            break
        }
    }

    /// Notes a request that the receiver never answered.
    package mutating func noteUnanswered(request: DexcomPacket, where location: WireLocation) {
        let name =
            DexcomCommand(rawValue: request.code).map { Self.describe($0, request.payload) }
            ?? "command 0x\(String(request.code, radix: 16, uppercase: true))"
        unanswered.append("\(name) \(location)")
    }

    /// Whether every record of the page is at or below the stored index of its partition (the
    /// header is CRC-checked first; a page with no records is never skipped).
    private func isStored(_ bytes: ArraySlice<UInt8>) throws(DexcomError) -> Bool {
        guard bytes.count == DexcomPage.size, let stored = storedThrough[bytes[bytes.startIndex + 8]] else { return false }
        let partition = bytes[bytes.startIndex + 8]
        let name = DexcomPartition(rawValue: partition)?.description ?? "partition \(partition)"
        let header = try DexcomPageHeader(bytes.prefix(DexcomPageHeader.size), partitionName: name, pageNumber: bytes.u32le(at: 10))
        guard header.recordCount > 0 else { return false }
        let last = UInt64(header.firstIndex) + UInt64(header.recordCount) - 1
        return last <= UInt64(stored)
    }

    private mutating func absorb(_ page: DexcomPage) {
        pagesDecoded += 1
        let header = page.header
        pageFirstIndex[header.partition, default: [:]][header.pageNumber] = header.firstIndex
        switch DexcomPartition(rawValue: header.partition) {
        case .egvData?:
            if egv.isEmpty, let pages = pageRanges[header.partition] ?? nil {
                // Room for every record of the partition's pages (up to a few years' worth, whatever
                // a damaged range says), made once rather than grown.
                egv.reserveCapacity(min(pages.count * page.records.count, 500_000))
            }
            for (i, record) in page.records.enumerated() {
                egv.insert(DexcomEGVRecord(record, index: header.firstIndex &+ UInt32(i), page: header.pageNumber))
            }
        case .meterData?:
            for (i, record) in page.records.enumerated() {
                meter.insert(DexcomMeterRecord(record, index: header.firstIndex &+ UInt32(i), page: header.pageNumber))
            }
        case .manufacturingData?:
            // Receivers can be re-manufactured: the newest record wins.
            if let record = page.records.last {
                let xml = DexcomXMLRecord(record)
                if !xml.attributes.isEmpty { manufacturing = xml.attributes }
            }
        default:
            break
        }
    }

    /// `ReadDatabasePages(EGVData, page 1242, 4 pages)`.
    static func describe(_ command: DexcomCommand, _ payload: [UInt8]) -> String {
        func partition(_ id: UInt8) -> String { DexcomPartition(rawValue: id)?.description ?? "partition \(id)" }
        switch command {
        case .readDatabasePageRange where payload.count == 1:
            return "\(command)(\(partition(payload[0])))"
        case .readDatabasePages where payload.count == 6:
            return "\(command)(\(partition(payload[0])), page \(payload.u32le(at: 1)), \(payload[5]) page\(payload[5] == 1 ? "" : "s"))"
        case .readDatabasePageHeader where payload.count == 5:
            return "\(command)(\(partition(payload[0])), page \(payload.u32le(at: 1)))"
        default:
            return command.description
        }
    }
}
