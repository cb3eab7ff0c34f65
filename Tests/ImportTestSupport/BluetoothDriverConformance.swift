import CaptureBluetooth
import Drivers
import Foundation
import Importer
import Model
import Store
import TestSupport
import Transport
import TransportReplay
import XCTest

/// A Bluetooth LE device as the driver conformance kit drives it: a simulated peripheral serving
/// one or more of the registered GATT services. A new service registers by conforming a type to
/// this and adding it to the kit's list (the kit's test fails for a driver in
/// `DriverRegistry.ble` that no registered device serves).
package protocol ConformingBLEDevice {
    /// The driver families (`ble-cgms`) whose services the device serves.
    static var families: [DeviceFamily] { get }
    /// A simulated peripheral and its clock: `step` 0 holds a history (stored records, or a
    /// session of notifications); `step` 1 the same and newer ones. Each call makes a fresh one.
    static func peripheral(step: Int) -> (bearer: any ATTBearer, clock: () -> Date)
    /// The lab scenario that serves this device to a real kernel; nil when the lab has none.
    static var labScenario: String? { get }
}

extension DriverConformanceKit {
    /// A Bluetooth device through the same steps as a USB driver, over GATT:
    /// 1. **simulator**: a live-path import stores readings under each glucose service's family
    ///    and activity under the device's `ble` source with its services listed in the store,
    ///    and a second import of the same device stores nothing new;
    /// 2. **recording**: the session recorded during that import is a btsnoop file holding one LE
    ///    connection carrying ATT, to the device's address;
    /// 3. **conversation replay**: the recording replays by conversation to the same rows
    ///    (readings, activity minutes, exercise);
    /// 4. **passive decode**: the drivers listening to the recording alone (no request sent)
    ///    read the same records and samples;
    /// 5. **damage**: the recording cut after each record: every import ends, and either fails
    ///    storing nothing or stores only readings of the whole recording;
    /// 6. **cursors**: after the first history, the device with newer records leaves the same
    ///    rows as one import of the whole, storing nothing twice;
    /// 7. **live**: the device's lab scenario exists.
    package static func check(_ device: any ConformingBLEDevice.Type, file: StaticString = #filePath, line: UInt = #line) throws {
        let name = device.families.map(\.rawValue).joined(separator: "-")
        let folder = try Fixtures.temporaryDirectory()

        // 1. Simulator.
        let recording = folder.appendingPathComponent("\(name).btsnoop")
        let live = try store(folder, "live")
        let first = try importPeripheral(device, step: 0, into: live, recordTo: recording)
        let stored = Set(first.glucose.map(\.source.family) + (first.activity?.services ?? []))
        XCTAssertTrue(
            Set(device.families).isSubset(of: stored), "\(name): the import stores under \(device.families), not \(stored.sorted())",
            file: file, line: line)
        if let activity = first.activity {
            XCTAssertEqual(activity.source.family, "ble", "\(name): a device's activity is stored under the bus's family", file: file, line: line)
            XCTAssertEqual(
                try sqlite3(
                    live.path, "SELECT service FROM source_service JOIN source ON source.id = source_id WHERE family = 'ble' ORDER BY service;"),
                activity.services.map(\.rawValue).sorted().joined(separator: "\n"), "\(name): the store lists the services read", file: file,
                line: line)
        }
        XCTAssertEqual(first.problems, [], "\(name): the simulated device's session has no problem", file: file, line: line)
        let liveRows = try rows(live)
        XCTAssertFalse(liveRows.isEmpty, file: file, line: line)
        _ = try importPeripheral(device, step: 0, into: live)
        XCTAssertEqual(try rows(live), liveRows, "\(name): a second import of the same device stores nothing new", file: file, line: line)

        // 2. Recording.
        let capture = try LECapture.read(contentsOf: recording)
        XCTAssertEqual(capture.attConnections.count, 1, "\(name): the recording holds one ATT connection", file: file, line: line)
        XCTAssertEqual(capture.attConnections.first?.peerAddress, first.identity?.peer.address, file: file, line: line)

        // 3. Conversation replay.
        let replayed = try store(folder, "replay")
        let replay = try Importer(store: replayed).run(.capture(recording)).devices
        XCTAssertEqual(replay.map(\.replayMode), [.conversation], "\(name): the recording replays by conversation", file: file, line: line)
        XCTAssertEqual(try rows(replayed), liveRows, "\(name): the replay stores what the live import stored", file: file, line: line)

        // 4. Passive decode.
        let connection = try XCTUnwrap(capture.attConnections.first, file: file, line: line)
        let listener = ReplayATTBearer(connection: connection, file: capture.name, name: nil, pacing: .followDevice, deadline: nil)
        let listened = try BLESession.run(ATTClient(bearer: listener), mode: .listenOnly, limits: .replay, context: .fresh)
        XCTAssertEqual(
            listened.reports.compactMap { $0.glucose?.recordsRead }.reduce(0, +), first.glucose.reduce(0) { $0 + $1.summary.recordsRead },
            "\(name): listening to the recording reads the same records", file: file, line: line)
        XCTAssertEqual(
            listened.reports.filter { $0.glucose == nil }.reduce(0) { $0 + $1.samples.count }, first.activity?.summary.samplesRead ?? 0,
            "\(name): listening to the recording reads the same samples", file: file, line: line)

        // 5. Damage: the recording cut after each record.
        let bytes = [UInt8](try Data(contentsOf: recording))
        let whole = Set(try storeContent(live, [.readings]))
        for (index, end) in try CaptureCuts.boundaries(of: bytes).dropLast().enumerated() {
            let url = folder.appendingPathComponent("cut.btsnoop")
            try Data(bytes[..<end]).write(to: url)
            let target = try store(folder, "cut-\(index)")
            do {
                _ = try Importer(store: target).run(.capture(url))
                let readings = try storeContent(target, [.readings])
                XCTAssertTrue(
                    readings.allSatisfy(whole.contains),
                    "\(name), cut after record \(index + 1): stored readings the whole recording "
                        + "does not hold: \(readings.filter { !whole.contains($0) }.prefix(3))", file: file, line: line)
            } catch {
                XCTAssertEqual(
                    try rows(target), [], "\(name), cut after record \(index + 1): failed (\(error)) but stored rows", file: file, line: line)
            }
        }

        // 6. Cursors.
        _ = try importPeripheral(device, step: 1, into: live)
        let wholeStore = try store(folder, "whole")
        _ = try importPeripheral(device, step: 1, into: wholeStore)
        XCTAssertEqual(try rows(live), try rows(wholeStore), "\(name): two imports leave what one import of the whole leaves", file: file, line: line)
        XCTAssertNotEqual(try rows(live), liveRows, "\(name): the newer records are stored", file: file, line: line)

        // 7. Live.
        if let scenario = device.labScenario {
            let script = Fixtures.repositoryRoot.appendingPathComponent("Lab/scenarios/\(scenario).sh")
            XCTAssertTrue(FileManager.default.fileExists(atPath: script.path), "\(name): no lab scenario \(scenario)", file: file, line: line)
        }
    }

    private static func store(_ folder: URL, _ name: String) throws -> SharedStore {
        let store = try SharedStore(path: folder.appendingPathComponent("\(name).sqlite").path, timeZone: TimeZone(identifier: "Europe/Berlin")!)
        try store.setUserProfile(UserProfile(age: 40))
        return store
    }

    private static func importPeripheral(
        _ device: any ConformingBLEDevice.Type, step: Int, into store: SharedStore, recordTo: URL? = nil
    ) throws -> DeviceImport {
        let (bearer, clock) = device.peripheral(step: step)
        let context = ImportContext(recordTo: recordTo, recordingClock: clock, limits: .replay)
        return try Importer(store: store).run(.bluetooth(ConnectedPeer(bearer, origin: "simulated device")), context: context).devices[0]
    }

    /// The rows two imports of the same session must agree on: readings, activity minutes and
    /// exercise sessions.
    private static func rows(_ store: SharedStore) throws -> [String] {
        try storeContent(store, [.readings, .activityMinutes, .exercise])
    }
}
