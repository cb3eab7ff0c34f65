import Checksums
import Drivers
import Foundation

/// Builds database pages the way a receiver lays them out: header with CRC, records each ending
/// in their CRC, 0xFF fill.
package enum DexcomPageBuilder {
    /// A 528-byte page holding `records` (each without its CRC; the CRC is appended).
    package static func page(partition: DexcomPartition, revision: UInt8, pageNumber: UInt32, firstIndex: UInt32, records: [[UInt8]]) -> [UInt8] {
        var header = firstIndex.littleEndianBytes + UInt32(records.count).littleEndianBytes
        header += [partition.rawValue, revision] + pageNumber.littleEndianBytes + [UInt8](repeating: 0, count: 12)
        header += CRC16.xmodem.checksum(header).littleEndianBytes
        var page = header
        for record in records {
            page += record + CRC16.xmodem.checksum(record).littleEndianBytes
        }
        precondition(page.count <= DexcomPage.size, "records overflow the page")
        return page + [UInt8](repeating: 0xFF, count: DexcomPage.size - page.count)
    }

    /// A G4 (revision 2, 13-byte) EGV record without its CRC.
    package static func egvRecord(systemSeconds: UInt32, displaySeconds: UInt32, glucoseWord: UInt16, trendByte: UInt8) -> [UInt8] {
        systemSeconds.littleEndianBytes + displaySeconds.littleEndianBytes + glucoseWord.littleEndianBytes + [trendByte]
    }

    /// A G6 (revision 5, 25-byte) EGV record without its CRC: the G4 fields, with the trend byte
    /// at offset 19 and the bytes glucobridge does not decode left zero.
    package static func g6EGVRecord(systemSeconds: UInt32, displaySeconds: UInt32, glucoseWord: UInt16, trendByte: UInt8) -> [UInt8] {
        var record = systemSeconds.littleEndianBytes + displaySeconds.littleEndianBytes + glucoseWord.littleEndianBytes
        record += [UInt8](repeating: 0, count: 9) + [trendByte] + [0, 0, 0]
        return record
    }

    /// The EGV record layouts the generator writes.
    package enum EGVLayout: Sendable {
        /// Revision 2, 13 bytes: 38 records a page.
        case g4
        /// Revision 5, 25 bytes: 20 records a page.
        case g6

        package var revision: UInt8 { self == .g4 ? 2 : 5 }
        /// Bytes per record, CRC included.
        package var recordLength: Int { self == .g4 ? 13 : 25 }
        package var recordsPerPage: Int { DexcomPage.dataSize / recordLength }
    }

    /// EGV pages for `count` records every 5 minutes ending at `lastSystemSeconds`, with a
    /// deterministic glucose trace between 40 and 400 mg/dL. Every index in `special` holds the
    /// special value 5 (SENSOR_NOT_CALIBRATED) instead of a reading.
    package static func generatedEGVPages(
        count: Int, lastSystemSeconds: UInt32, displayOffset: Int32, firstPageNumber: UInt32 = 0,
        layout: EGVLayout = .g4, special: Set<Int> = []
    ) -> [UInt32: [UInt8]] {
        let readings = (0..<count).map { i in
            // A smooth daily curve with a faster wobble: covers hypo, range and hyper values.
            let phase = Double(i) / 288 * 2 * Double.pi
            let value = 150 + 90 * sin(phase) + 45 * sin(phase * 7.3)
            return (
                systemSeconds: lastSystemSeconds - UInt32(count - 1 - i) * 300,
                glucose: special.contains(i) ? 5 : UInt16(max(40, min(400, value.rounded()))), trendByte: 0x10 | UInt8(1 + i % 7)
            )
        }
        return egvPages(readings, displayOffset: displayOffset, firstPageNumber: firstPageNumber, layout: layout)
    }

    /// EGV pages in `layout` holding `readings` in order.
    package static func egvPages(
        _ readings: [(systemSeconds: UInt32, glucose: UInt16, trendByte: UInt8)], displayOffset: Int32, firstPageNumber: UInt32 = 0,
        layout: EGVLayout = .g4
    ) -> [UInt32: [UInt8]] {
        let perPage = layout.recordsPerPage
        var pages: [UInt32: [UInt8]] = [:]
        var records: [[UInt8]] = []
        var pageNumber = firstPageNumber
        var firstIndex: UInt32 = 0
        for (i, reading) in readings.enumerated() {
            let display = UInt32(Int64(reading.systemSeconds) + Int64(displayOffset))
            records.append(
                layout == .g4
                    ? egvRecord(
                        systemSeconds: reading.systemSeconds, displaySeconds: display, glucoseWord: reading.glucose, trendByte: reading.trendByte)
                    : g6EGVRecord(
                        systemSeconds: reading.systemSeconds, displaySeconds: display, glucoseWord: reading.glucose, trendByte: reading.trendByte))
            if records.count == perPage || i == readings.count - 1 {
                pages[pageNumber] = page(
                    partition: .egvData, revision: layout.revision, pageNumber: pageNumber, firstIndex: firstIndex, records: records)
                firstIndex += UInt32(records.count)
                pageNumber += 1
                records.removeAll(keepingCapacity: true)
            }
        }
        return pages
    }

    /// A manufacturing-data page holding one XML record with `serial`.
    package static func manufacturingPage(serial: String, systemSeconds: UInt32) -> [UInt8] {
        var xml = Array("<ManufacturingParameters SerialNumber=\"\(serial)\" HardwarePartNumber=\"SIMULATED\" />".utf8)
        xml += [UInt8](repeating: 0, count: 490 - xml.count)
        let record = systemSeconds.littleEndianBytes + systemSeconds.littleEndianBytes + xml
        return page(partition: .manufacturingData, revision: 1, pageNumber: 0, firstIndex: 0, records: [record])
    }
}
