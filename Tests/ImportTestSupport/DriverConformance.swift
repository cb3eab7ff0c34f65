import CaptureUSB
import Drivers
import Foundation
import Importer
import Model
import Store
import TestSupport
import Transport
import TransportReplay
import XCTest

/// A USB device family as the driver conformance kit drives it. A new driver registers by
/// conforming a type to this and adding it to the kit's list (the kit's own test fails for a
/// driver in `DriverRegistry.usb` that is not there); it then gets every step of
/// ``DriverConformanceKit/check(_:file:line:)``.
package protocol ConformingUSBFamily {
    /// The driver under test.
    static var driver: any USBDeviceDriver.Type { get }
    /// A simulated device: `step` 0 holds a history; `step` 1 the same history and newer records.
    /// Each call makes a fresh device with its own host clock.
    static func simulator(step: Int) -> any USBTransport
    /// How many records already stored a second import may read again, as its protocol allows:
    /// 0 where the device is asked for newer records only or the driver drops the old ones, the
    /// rest of a page where it reads by page, its whole memory where it always sends everything.
    /// They are never stored twice.
    static var oldRecordsReadAgain: Int { get }
    /// The lab scenario (`Lab/scenarios/NAME.sh`) that serves this family's device to a real kernel
    /// and checks that the live import equals the replay; nil when the lab has none.
    static var labScenario: String? { get }
}

/// The steps every registered driver goes through, the same for each:
/// 1. **simulator**: a live-path import of the simulated device stores readings of the driver's
///    family, and a second import of the same device stores nothing new;
/// 2. **recording**: the session recorded while importing is a usbmon pcap whose descriptors name
///    the device, so the driver is found from them;
/// 3. **conversation replay**: the recording replays by conversation to exactly the same rows;
/// 4. **passive decode**: the driver decodes the recorded conversation on its own to the same values;
/// 5. **damage**: the recording cut after each packet, with the last byte of each data packet
///    changed (a bad checksum), and with each data packet one byte short (a wrong length): each
///    import ends, and either fails storing nothing or stores only rows of the whole recording;
/// 6. **cursors**: after the first history, the device with newer records adds just those, reads
///    no more old records than its protocol needs (``ConformingUSBFamily/oldRecordsReadAgain``),
///    and leaves the same rows as one import of the whole;
/// 7. **live**: the family's lab scenario exists (the lab runs it against a real kernel in CI);
/// 8. **device gone**: the device unplugged after each of a spread of transfers: the session,
///    called through the contract, throws the family's own error carrying the disconnection as
///    its `transportError`, and the import fails with `ImportError.transport(.disconnected)`
///    storing nothing.
package enum DriverConformanceKit {
    /// One stored reading, as the kit compares them: record key, value, unit, tag, instant, Day.
    package struct Row: Hashable, CustomStringConvertible {
        var key: String
        var value: Double
        var unit: GlucoseUnit
        var tag: GlucoseTag
        var time: Date
        var day: DayDate

        package var description: String { "\(key) \(value) \(unit) \(tag) \(time.timeIntervalSince1970) \(day)" }
    }

    package static func check(_ family: any ConformingUSBFamily.Type, file: StaticString = #filePath, line: UInt = #line) throws {
        let driver = family.driver
        let name = driver.family
        let folder = try Fixtures.temporaryDirectory()

        // 1. Simulator.
        let recording = folder.appendingPathComponent("\(name).pcap")
        let live = try store(in: folder, "live")
        let first = try importSimulator(family, step: 0, into: live, recordTo: recording)
        XCTAssertEqual(first.source.family, name, "\(name): the import is stored under the driver's family", file: file, line: line)
        XCTAssertGreaterThan(first.summary.added, 0, "\(name): the simulator's readings are stored", file: file, line: line)
        let liveRows = try rows(live)
        XCTAssertEqual(liveRows.count, first.summary.added, file: file, line: line)
        let again = try importSimulator(family, step: 0, into: live)
        XCTAssertEqual(again.summary.added, 0, "\(name): a second import of the same device stores nothing new", file: file, line: line)
        XCTAssertEqual(try rows(live), liveRows, file: file, line: line)

        // 2. Recording.
        let capture = try USBCaptureReader.read(contentsOf: recording)
        let recorded = try XCTUnwrap(
            RecordedUSBDevice.devices(in: capture).first(where: \.hasDataTransfers), "\(name): the recording holds the conversation",
            file: file, line: line)
        XCTAssertTrue(recorded.hasDescriptors, "\(name): the recording holds the device's descriptors", file: file, line: line)
        XCTAssertEqual(
            DriverRegistry.usbDriver(vendorID: recorded.description.vendorID, productID: recorded.description.productID)?.family, name,
            "\(name): the driver is found from the recorded descriptors", file: file, line: line)

        // 3. Conversation replay.
        let replayed = try store(in: folder, "replay")
        let replay = try Importer(store: replayed).run(.capture(recording)).devices
        XCTAssertEqual(replay.map(\.replayMode), [.conversation], "\(name): the recording replays by conversation", file: file, line: line)
        XCTAssertEqual(try rows(replayed), liveRows, "\(name): the replay stores what the live import stored", file: file, line: line)

        // 4. Passive decode.
        let decoded = try XCTUnwrap(try driver.session(recorded: recorded, context: .fresh).glucose)
        XCTAssertEqual(decoded.source, first.source, "\(name): the passive decode finds the same device", file: file, line: line)
        XCTAssertEqual(
            Set(decoded.glucose.map { "\($0.stream):\($0.index)" }), Set(liveRows.map { String($0.key.prefix { $0 != "@" }) }),
            "\(name): the passive decode reads the same records", file: file, line: line)

        // 5. Damage.
        let whole = Set(liveRows)
        let bytes = [UInt8](try Data(contentsOf: recording))
        let packets = try packetRanges(bytes)
        var damaged: [(String, [UInt8])] = packets.dropLast().map { ("cut after packet \($0.number)", Array(bytes[..<$0.range.upperBound])) }
        for packet in packets where packet.range.count > 24 + 64 {
            var flipped = bytes
            flipped[packet.range.upperBound - 1] ^= 0x5A
            damaged.append(("last byte of packet \(packet.number) changed", flipped))
            damaged.append(("packet \(packet.number) one byte short", shortened(bytes, packet: packet.range)))
        }
        XCTAssertGreaterThan(damaged.count, packets.count, "\(name): the recording has data packets to damage", file: file, line: line)
        for (damage, content) in damaged {
            let url = folder.appendingPathComponent("damaged.pcap")
            try Data(content).write(to: url)
            let target = try store(in: folder, "damaged-\(UUID().uuidString)")
            do {
                _ = try Importer(store: target).run(.capture(url))
                let stored = try rows(target)
                XCTAssertTrue(
                    stored.allSatisfy(whole.contains),
                    "\(name), \(damage): stored rows the whole recording does not hold: "
                        + "\(stored.filter { !whole.contains($0) }.prefix(3))", file: file, line: line)
            } catch {
                XCTAssertEqual(try rows(target), [], "\(name), \(damage): failed (\(error)) but stored rows", file: file, line: line)
                XCTAssertEqual(try target.importRuns(limit: 1), [], "\(name), \(damage): failed but logged an import", file: file, line: line)
            }
        }

        // 6. Cursors.
        let grown = try importSimulator(family, step: 1, into: live)
        let whole1 = try store(in: folder, "whole")
        let all = try importSimulator(family, step: 1, into: whole1)
        XCTAssertGreaterThan(grown.summary.added, 0, "\(name): the newer records are stored", file: file, line: line)
        XCTAssertEqual(grown.summary.added, all.summary.added - first.summary.added, file: file, line: line)
        XCTAssertLessThanOrEqual(
            grown.summary.alreadyStored, family.oldRecordsReadAgain, "\(name): no more stored records are read again than the protocol needs",
            file: file, line: line)
        XCTAssertEqual(try rows(live), try rows(whole1), "\(name): two imports leave what one import of the whole leaves", file: file, line: line)

        // 7. Live.
        if let scenario = family.labScenario {
            let script = Fixtures.repositoryRoot.appendingPathComponent("Lab/scenarios/\(scenario).sh")
            XCTAssertTrue(FileManager.default.fileExists(atPath: script.path), "\(name): no lab scenario \(scenario)", file: file, line: line)
        }

        // 8. Device gone.
        let counter = Unplugging(family.simulator(step: 0), after: .max)
        _ = try driver.session(over: counter, context: .fresh)
        XCTAssertGreaterThan(counter.transfers, 2, "\(name): a session makes transfers", file: file, line: line)
        var cuts = [0, 1, 2]
        while let last = cuts.last, last * 2 < counter.transfers { cuts.append(last * 2) }
        for cut in cuts {
            let gone = Unplugging(family.simulator(step: 0), after: cut)
            do {
                _ = try driver.session(over: gone, context: .fresh)
                XCTFail("\(name), unplugged after \(cut) transfers: the session ended without the device", file: file, line: line)
            } catch {
                XCTAssertEqual(
                    error.error.transportError, .disconnected(Unplugging.reason),
                    "\(name), unplugged after \(cut) transfers: \(error.error) (\(type(of: error.error)))", file: file, line: line)
            }
            let target = try store(in: folder, "gone-\(cut)")
            let device = OpenedUSBDevice(Unplugging(family.simulator(step: 0), after: cut), driver: driver, origin: "simulated \(name)")
            XCTAssertThrowsError(try Importer(store: target).run(.usb(device)), file: file, line: line) { error in
                guard case .transport(.disconnected(Unplugging.reason))? = error as? ImportError else {
                    return XCTFail("\(name), unplugged after \(cut) transfers: \(error)", file: file, line: line)
                }
            }
            XCTAssertEqual(try rows(target), [], "\(name), unplugged after \(cut) transfers: stored rows", file: file, line: line)
            XCTAssertEqual(try target.importRuns(limit: 1), [], "\(name), unplugged after \(cut) transfers: logged an import", file: file, line: line)
        }
    }

    private static func store(in folder: URL, _ name: String) throws -> SharedStore {
        try SharedStore(path: folder.appendingPathComponent("\(name).sqlite").path, timeZone: TimeZone(identifier: "Europe/Berlin")!)
    }

    private static func importSimulator(
        _ family: any ConformingUSBFamily.Type, step: Int, into store: SharedStore, recordTo: URL? = nil
    ) throws -> GlucoseImport {
        let device = OpenedUSBDevice(family.simulator(step: step), driver: family.driver, origin: "simulated \(family.driver.family)")
        return try Importer(store: store).run(.usb(device), context: ImportContext(recordTo: recordTo)).devices[0].glucose[0]
    }

    private static func rows(_ store: SharedStore) throws -> [Row] {
        try store.glucose().map { Row(key: $0.recordKey ?? "", value: $0.mgdl, unit: $0.unit, tag: $0.tag, time: $0.time, day: $0.day) }
    }

    /// Each pcap record's byte range and number (from 1).
    private static func packetRanges(_ bytes: [UInt8]) throws -> [(number: Int, range: Range<Int>)] {
        let ends = try CaptureCuts.boundaries(of: bytes)
        var start = 24
        return ends.enumerated().map { index, end in
            defer { start = end }
            return (index + 1, start..<end)
        }
    }

    /// The capture with the data of the usbmon pcap record at `range` one byte shorter: the
    /// record's captured and original lengths, and the usbmon header's length and captured
    /// length, all one less.
    private static func shortened(_ bytes: [UInt8], packet range: Range<Int>) -> [UInt8] {
        var record = Array(bytes[range].dropLast())
        for offset in [8, 12, 16 + 32, 16 + 36] {
            let value =
                UInt32(record[offset]) | UInt32(record[offset + 1]) << 8 | UInt32(record[offset + 2]) << 16
                | UInt32(record[offset + 3]) << 24
            let less = value &- 1
            for byte in 0..<4 { record[offset + byte] = UInt8(truncatingIfNeeded: less >> (8 * byte)) }
        }
        return Array(bytes[..<range.lowerBound]) + record + Array(bytes[range.upperBound...])
    }
}

/// A device that is unplugged after `after` transfers: every later transfer fails as a device
/// gone does (libusb's LIBUSB_ERROR_NO_DEVICE).
final class Unplugging: USBTransport {
    static let reason = "the simulated device was unplugged"
    let base: any USBTransport
    let after: Int
    private(set) var transfers = 0

    init(_ base: any USBTransport, after: Int) {
        self.base = base
        self.after = after
    }

    var device: USBDeviceDescription { base.device }
    func claimInterface(_ number: UInt8) throws(TransportError) { try base.claimInterface(number) }
    func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        try transfer()
        try base.write(bytes, to: endpoint, timeout: timeout)
    }
    func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        try transfer()
        return try base.read(from: endpoint, maxLength: maxLength, timeout: timeout)
    }
    func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        try transfer()
        return try base.control(setup, data: data, timeout: timeout)
    }
    func close() { base.close() }

    private func transfer() throws(TransportError) {
        guard transfers < after else { throw .disconnected(Self.reason) }
        transfers += 1
    }
}
