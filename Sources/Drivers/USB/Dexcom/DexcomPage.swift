import Checksums

/// The 28-byte header at the start of every database page.
package struct DexcomPageHeader: Sendable, Equatable {
    /// The running index of the page's first record.
    package var firstIndex: UInt32
    package var recordCount: UInt32
    package var partition: UInt8
    package var revision: UInt8
    package var pageNumber: UInt32

    package static let size = 28

    /// Reads and CRC-checks a header.
    package init(_ bytes: ArraySlice<UInt8>, partitionName: String, pageNumber requested: UInt32) throws(DexcomError) {
        guard bytes.count >= Self.size else {
            throw .malformedPage(partition: partitionName, page: requested, reason: "header is \(bytes.count) bytes, not \(Self.size)")
        }
        let found = bytes.u16le(at: 26)
        let expected = CRC16.xmodem.checksum(bytes.prefix(26))
        guard found == expected else {
            throw .pageCRCMismatch(partition: partitionName, page: requested, expected: expected, found: found)
        }
        firstIndex = bytes.u32le(at: 0)
        recordCount = bytes.u32le(at: 4)
        partition = bytes[bytes.startIndex + 8]
        revision = bytes[bytes.startIndex + 9]
        pageNumber = bytes.u32le(at: 10)
    }
}

/// A 528-byte database page: a header and records packed oldest first, each ending in its own
/// CRC-16. Unused bytes are 0xFF.
public struct DexcomPage: Sendable {
    package var header: DexcomPageHeader
    /// The records' bytes, CRC included, each confirmed by its CRC.
    package var records: [ArraySlice<UInt8>]

    public static let size = 528
    package static let dataSize = 500

    /// Parses a page whose records are `recordLength` bytes long (CRC included). When
    /// `recordLength` is nil it is looked up from the partition and the page's revision.
    package init(_ bytes: ArraySlice<UInt8>, recordLength: ((_ partition: UInt8, _ revision: UInt8) -> Int?)) throws(DexcomError) {
        guard bytes.count == Self.size else {
            throw .malformedPage(partition: "database", page: 0, reason: "\(bytes.count) bytes instead of \(Self.size)")
        }
        let partitionID = bytes[bytes.startIndex + 8]
        let name = DexcomPartition(rawValue: partitionID)?.description ?? "partition \(partitionID)"
        let pageNumber = bytes.u32le(at: 10)
        header = try DexcomPageHeader(bytes.prefix(DexcomPageHeader.size), partitionName: name, pageNumber: pageNumber)
        guard let length = recordLength(partitionID, header.revision) else {
            throw .unsupportedRecordLayout(partition: name, revision: header.revision)
        }
        guard length > 2, Int(header.recordCount) * length <= Self.dataSize else {
            throw .malformedPage(
                partition: name, page: pageNumber,
                reason: "\(header.recordCount) records of \(length) bytes do not fit in \(Self.dataSize) bytes")
        }
        var records: [ArraySlice<UInt8>] = []
        records.reserveCapacity(Int(header.recordCount))
        var offset = bytes.startIndex + DexcomPageHeader.size
        for i in 0..<header.recordCount {
            let record = bytes[offset..<(offset + length)]
            let found = record.u16le(at: length - 2)
            let expected = CRC16.xmodem.checksum(record.prefix(length - 2))
            guard found == expected else {
                throw .recordCRCMismatch(
                    partition: name, page: pageNumber, record: header.firstIndex &+ i, expected: expected, found: found)
            }
            records.append(record)
            offset += length
        }
        self.records = records
    }
}

/// The record length (CRC included) of each partition and revision, for receivers whose
/// PartitionInfo was not read. Sources: cgm-usb.md §1.4–1.5.
package enum DexcomRecordLayout {
    package static func defaultLength(partition: UInt8, revision: UInt8) -> Int? {
        switch (DexcomPartition(rawValue: partition), revision) {
        case (.manufacturingData?, _), (.firmwareParameterData?, _), (.pcSoftwareParameter?, _): 500
        case (.egvData?, 1...3), (.backfilledEGVData?, 1...3): 13
        case (.egvData?, 4), (.backfilledEGVData?, 4): 23
        case (.egvData?, 5), (.backfilledEGVData?, 5): 25
        case (.meterData?, 1): 16
        case (.meterData?, 3): 21
        case (.sensorData?, 1): 20
        case (.insertionTime?, 1): 15
        case (.userEventData?, 1): 20
        case (.calSet?, 1...2): 148
        case (.calSet?, 3): 249
        default: nil
        }
    }
}
