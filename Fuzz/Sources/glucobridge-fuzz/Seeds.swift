import CaptureBluetooth
import CaptureUSB
import Drivers
import Foundation
import Simulators
import Transport
import TransportReplay

/// The starting corpus of each target, taken from the repository's `fixtures/`: whole captures
/// where a target reads files, and the packets, pages, reports and values inside them where a
/// target reads those. Written by `FUZZ_SEEDS=DIR` runs (see `Fuzz/run`).
enum Seeds {
    static func write(into folder: URL, fixtures: URL) throws {
        func file(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(path))) }
        var seeds: [String: [[UInt8]]] = [:]
        let pcaps = try ["dexcom/ecc1-g4-receiver.pcap", "freestyle/libre-synthetic.pcap"].map(file)
        let transcript = try file("contour/contour-usb-session.txt")
        let btsnoops = try [
            "ble/synthetic/synthetic-hrs-cgms-android-h4.btsnoop", "ble/synthetic/synthetic-hrs-cgms-btmon-monitor.btsnoop",
            "ble/hr-40min-walk.btsnoop",
        ].map(file)
        seeds["pcap"] = pcaps
        seeds["pcapng"] = pcaps.map(pcapng)
        seeds["transcript"] = [transcript]
        seeds["btsnoop"] = btsnoops
        let fits = try [
            "Activity.fit", "MonitoringFile.fit", "garmin-edge-820-bike.fit", "activity-unexpected-eof.fit",
            "activity-settings-corruptheader.fit", "synthetic-compressed-developer.fit",
        ].map { try file("fit/\($0)") }
        seeds["fit"] = fits
        seeds["replay"] = pcaps + pcaps.map(pcapng) + [transcript] + btsnoops + fits

        let usb = try pcaps.map { try USBCaptureReader.parse($0, name: "seed") }
        seeds["usbmon"] = try pcaps.map { try packetBodies(ofPcap: $0) }.map(framed)
        seeds["usbpcap"] = usb.map { framed($0.transfers.map(usbPcapPacket)) }
        let dexcomStream = usb[0].transfers.filter { $0.type == .bulk }.map(\.data)
        seeds["dexcom-packet"] = dexcomStream.filter { !$0.isEmpty }.prefix(32).map { $0 }
        seeds["dexcom-page"] = try ["0.0", "3.469", "4.312", "5.252"].map { name in
            let text = try String(contentsOf: fixtures.appendingPathComponent("dexcom/ecc1/\(name).data"), encoding: .utf8)
            return Hex.decode(Substring(text.filter { !$0.isWhitespace })) ?? []
        }
        let reports = usb[1].transfers.filter { $0.direction == .in }.map(\.data).filter { !$0.isEmpty }
        seeds["freestyle-text"] = Array(reports.prefix(24)) + [try file("freestyle/tidepool/text-responses.txt")]
        seeds["freestyle-binary"] = try [
            "freestyle/tidepool/factory-config.aap.json", "freestyle/tidepool/historical-records.aap.json",
            "freestyle/tidepool/atp-crc32-vectors.txt",
        ].map(file)
        let libre2 = try libre2Session(folder: FileManager.default.temporaryDirectory)
        seeds["freestyle-handshake"] = [framed(libre2.map { [$0.direction == .out ? 1 : 0] + $0.data })]
        seeds["freestyle-encrypted"] = libre2.filter { $0.data.count == 64 && !FreeStyleSessionCipher.isClear($0.data[0]) }.prefix(16)
            .map { [$0.direction == .out ? 1 : 0] + $0.data }
        let contour = try USBCaptureReader.parse(transcript, name: "seed").transfers.filter { $0.direction == .in }
            .flatMap { $0.data.count > 4 ? Array($0.data[4..<min($0.data.count, 4 + Int($0.data[3]))]) : [] }
        seeds["astm"] = [contour] + (try ["contour/glucometerutils/header-reply.bin", "contour/tidepool/result-frame-mgdl.bin"].map(file))

        let accuChek = try accuChekSession(folder: FileManager.default.temporaryDirectory)
        seeds["phd-apdu"] = [accuChek.flatMap(\.data)] + accuChek.map(\.data)
        let (verioCapture, verio) = try verioSession(folder: FileManager.default.temporaryDirectory)
        seeds["verio-frame"] =
            [framed(verio.map { [$0.direction == .in ? 1 : 0] + $0.data })]
            + verio.filter { $0.direction == .in && $0.data.count == 512 }.prefix(16).map { [5] + $0.data }
        seeds["replay", default: []].append(verioCapture)

        let h4 = try BTSnoopReader.parse(btsnoops[0], name: "seed").packets.map(\.data)
        seeds["hci"] = Array(h4.prefix(64))
        seeds["l2cap"] = [framed(h4.filter { $0.first == 0x02 }.map { Array($0.dropFirst()) })]
        let att = try btsnoops.flatMap { try LECapture(BTSnoopReader.parse($0, name: "seed")).connections.flatMap(\.att).map(\.bytes) }
        seeds["att"] = Array(att.prefix(200))
        let values = att.filter { $0.first == 0x1B || $0.first == 0x1D }.map { Array($0.dropFirst(3)) }
        seeds["ble-values"] = (0..<16).flatMap { selector in values.prefix(8).map { [UInt8(selector)] + $0 } }

        seeds["huami"] = huamiFetches()
        seeds["infinitime"] = infiniTimeReads()

        for (target, corpus) in seeds {
            let directory = folder.appendingPathComponent(target)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (index, seed) in corpus.enumerated() where !seed.isEmpty {
                try Data(seed).write(to: directory.appendingPathComponent("seed-\(index)"))
            }
        }
    }

    /// The meter's side of a session with the simulated Accu-Chek (mg/dL, HI, LO, a control
    /// result): its bulk IN transfers as recorded.
    static func accuChekSession(folder: URL) throws -> [USBTransfer] {
        let url = folder.appendingPathComponent("glucobridge-fuzz-accuchek-\(getpid()).pcap")
        defer { try? FileManager.default.removeItem(at: url) }
        let first = PHDAbsoluteTime(year: 2026, month: 3, day: 9, hour: 7, minute: 15, second: 0)
        let entries = [99, 0x07FE, 0x0802, 120].enumerated().map { i, value in
            AccuChekEntry(
                position: Int64(i), time: PHDAbsoluteTime(seconds: first.seconds + Int64(i) * 3600), glucose: UInt16(value),
                status: i == 3 ? AccuChekEntry.testData : 0)
        }
        let meter = AccuChekMeterSimulator(
            serial: "92912345678", unit: .milligramsPerDeciliter, clock: PHDAbsoluteTime(seconds: first.seconds + 86_400), entries: entries,
            hostClock: { Date(timeIntervalSince1970: 1_773_130_000) })
        try AccuChekMeterSimulator.record(meter, to: url)
        return try USBCaptureReader.read(contentsOf: url).transfers.filter { $0.direction == .in && $0.type == .bulk }
    }

    /// A session with the simulated OneTouch Verio: its usbmon pcap and bulk transfers.
    static func verioSession(folder: URL) throws -> ([UInt8], [USBTransfer]) {
        let url = folder.appendingPathComponent("glucobridge-fuzz-verio-\(getpid()).pcap")
        defer { try? FileManager.default.removeItem(at: url) }
        let records = VerioMeter.history(count: 4, newest: 826_355_700, values: [99, 20, 600, 120], flags: [3: VerioRecord.controlSolution])
        let meter = VerioMeterSimulator(
            meter: VerioMeter(serial: "RPT1234ABC", clock: 826_359_300, records: records), hostClock: { Date(timeIntervalSince1970: 1_773_044_190) })
        try VerioMeterSimulator.record(meter, to: url)
        return ([UInt8](try Data(contentsOf: url)), try USBCaptureReader.read(contentsOf: url).transfers.filter { $0.type == .bulk })
    }

    /// A Libre 2 session with the simulated reader, made with the fuzz keys and the session nonces
    /// `freeStyleEncrypted` uses (reader nonce 1…8, from the simulator's counter; host nonce 9…16).
    static func libre2Session(folder: URL) throws -> [USBTransfer] {
        let reader = FreeStyleDemo.encryptedReader(keys: fuzzKeys)
        let url = folder.appendingPathComponent("glucobridge-fuzz-seed-\(getpid())-libre2.pcap")
        let recorder = try RecordingUSBTransport(recording: reader, to: url, clock: reader.hostClock)
        _ = try FreeStyleDriver.readSession(over: recorder, keys: { () throws(FreeStyleError) in fuzzKeys }, hostNonce: { _ in Array(9...16) })
        try recorder.finish()
        defer { try? FileManager.default.removeItem(at: url) }
        let capture = try USBCaptureReader.read(contentsOf: url)
        return RecordedUSBDevice.devices(in: capture).first { $0.hasDataTransfers }?.conversation ?? []
    }

    /// A PineTime's reads as the `infinitime` target takes them: the watch's clock, then counts
    /// through a day, a restart and the next midnight.
    static func infiniTimeReads() -> [[UInt8]] {
        // 2024-05-01 (a Wednesday) 23:50:05, and the same without its weekday.
        let time: [UInt8] = [0xE8, 0x07, 5, 1, 23, 50, 5, 3, 0, 0]
        let unknownWeekday: [UInt8] = [0xE8, 0x07, 5, 1, 23, 50, 5, 0, 0, 0]
        let reads: [UInt32] = [5230, 5300, 5301, 40, 90, 12]
        return [
            framed([[0] + time] + reads.map { [61] + u32($0) }),
            framed([[0] + time, [119] + u32(200), [2] + unknownWeekday]),
        ]
    }

    /// Two hours of a Huami band's minutes as the `huami` target reads them: the authentication
    /// answers, the start answer, the data packets and the end, in both sample forms, whole and
    /// cut.
    static func huamiFetches() -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for form in HuamiSampleForm.allCases {
            let samples = (0..<120).map { (minute: Int) -> HuamiActivitySample in
                let asleep = minute < 60
                let steps: UInt8 = asleep ? 0 : UInt8(90 + minute % 30)
                let heartRate: UInt8 = minute % 17 == 0 ? 255 : UInt8(55 + minute / 2)
                let extra: [UInt8]? = form == .extended ? [0, 1, 0, 0] : nil
                return HuamiActivitySample(
                    kind: asleep ? 0x70 : 0x01, intensity: UInt8(minute % 50), steps: steps, heartRate: heartRate, extra: extra)
            }
            let data = samples.flatMap { (sample: HuamiActivitySample) -> [UInt8] in sample.bytes }
            let start = HuamiTime(year: 2024, month: 3, day: 31, hour: 1, minute: 0, quarterHours: 4)
            let packets = HuamiPacketStream.packets(of: data).map { [0] + $0 }
            let answers = [[1] + HuamiFetchAnswer.started(count: UInt32(data.count), start: start).bytes]
            let end = [[1] + HuamiFetchAnswer.finished(crc: HuamiCRC32.checksum(data)).bytes]
            let auth = [[2] + HuamiAuthMessage.random(Array(0..<16)).bytes, [2] + HuamiAuthMessage.verdict(status: 1).bytes]
            seeds.append([UInt8(form.rawValue / 8)] + framed(auth + answers + packets + end))
            seeds.append([UInt8(form.rawValue / 8)] + framed(answers + packets.prefix(5)))
        }
        return seeds
    }

    /// Pieces as the fuzz targets cut them: a 2-byte little-endian length before each.
    static func framed(_ pieces: [[UInt8]]) -> [UInt8] {
        pieces.flatMap { [UInt8(truncatingIfNeeded: $0.count), UInt8(truncatingIfNeeded: $0.count >> 8)] + $0 }
    }

    static func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// The packet bodies of a little-endian microsecond pcap.
    static func packetBodies(ofPcap bytes: [UInt8]) throws -> [[UInt8]] {
        var bodies: [[UInt8]] = []
        var at = 24
        while at + 16 <= bytes.count {
            let length = Int(bytes[at + 8]) | Int(bytes[at + 9]) << 8 | Int(bytes[at + 10]) << 16 | Int(bytes[at + 11]) << 24
            guard at + 16 + length <= bytes.count else { break }
            bodies.append(Array(bytes[(at + 16)..<(at + 16 + length)]))
            at += 16 + length
        }
        return bodies
    }

    /// The same packets as pcapng: a section header, one interface of the pcap's link type, and
    /// an enhanced packet block each (pcapng, IETF draft-ietf-opsawg-pcapng).
    static func pcapng(_ pcap: [UInt8]) -> [UInt8] {
        func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
            let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
            let length = UInt32(12 + padded.count)
            return u32(type) + u32(length) + padded + u32(length)
        }
        let link = UInt16(pcap[20]) | UInt16(pcap[21]) << 8
        var file = block(0x0A0D_0D0A, u32(0x1A2B_3C4D) + [1, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 8))
        file += block(1, [UInt8(link & 0xFF), UInt8(link >> 8), 0, 0] + u32(65_535))
        for (index, body) in ((try? packetBodies(ofPcap: pcap)) ?? []).enumerated() {
            file += block(6, u32(0) + u32(0) + u32(UInt32(index) * 1000) + u32(UInt32(body.count)) + u32(UInt32(body.count)) + body)
        }
        return file
    }

    /// A USBPcap packet (its 27-byte header, Windows USBPcap `USBPCAP_BUFFER_PACKET_HEADER`) for
    /// a bulk or interrupt transfer.
    static func usbPcapPacket(_ transfer: USBTransfer) -> [UInt8] {
        let info: UInt8 = transfer.direction == .in ? 1 : 0
        let kind: UInt8 = transfer.type == .interrupt ? 1 : transfer.type == .control ? 2 : 3
        let endpoint = transfer.endpoint ?? (transfer.direction == .in ? 0x81 : 0x01)
        return [27, 0] + u32(UInt32(truncatingIfNeeded: transfer.packetNumber)) + u32(0) + u32(0) + [9, 0] + [info] + [1, 0] + [2, 0]
            + [endpoint, kind] + u32(UInt32(transfer.data.count)) + transfer.data
    }
}
