import CaptureBluetooth
import Foundation
import ImportTestSupport
import Importer
import Model
import Store
import TestSupport
import Transport
import XCTest

/// A band and a CGM connected at once: the heart-rate walk session and the synthetic HRS + CGMS
/// sensor merged into one btsnoop, the sensor's link renumbered to handle 0x0041 and started 30 s
/// into the walk, and one of the band's notifications moved between two ACL fragments of a sensor
/// PDU. Each connection is imported as its own device.
final class TwoDeviceCaptureEndToEndTests: XCTestCase {
    static func rehandled(_ packet: HCIPacket, from old: UInt16, to new: UInt16) -> HCIPacket {
        func put(_ parameters: inout [UInt8], at index: Int) {
            guard parameters.count > index + 1, (UInt16(parameters[index]) | UInt16(parameters[index + 1]) << 8) & 0x0FFF == old else { return }
            parameters[index] = UInt8(new & 0xFF)
            parameters[index + 1] = (parameters[index + 1] & 0xF0) | UInt8(new >> 8)
        }
        switch packet {
        case .acl(var acl):
            if acl.handle == old { acl.handle = new }
            return .acl(acl)
        case .event(let code, var parameters):
            switch code {
            case 0x3E where [0x01, 0x0A].contains(parameters.first): put(&parameters, at: 2)
            case 0x05: put(&parameters, at: 1)
            case 0x13:
                for pair in 0..<Int(parameters.first ?? 0) { put(&parameters, at: 1 + 4 * pair) }
            default: break
            }
            return .event(code: code, parameters: parameters)
        default:
            return packet
        }
    }

    static func mergedCapture() throws -> URL {
        let band = try BTSnoopReader.read(contentsOf: Fixtures.url("ble/hr-40min-walk.btsnoop"))
        let sensor = try BTSnoopReader.read(contentsOf: Fixtures.url("ble/synthetic/synthetic-hrs-cgms-android-h4.btsnoop"))
        let bandHandle = try XCTUnwrap(try LECapture(band).attConnections.first?.handle)
        let sensorHandle = try XCTUnwrap(try LECapture(sensor).attConnections.first?.handle)
        let newHandle: UInt16 = bandHandle == 0x0041 ? 0x0042 : 0x0041
        let shift = band.packets[0].hostTime.addingTimeInterval(30).timeIntervalSince(sensor.packets[0].hostTime)
        struct Item {
            var time: Date
            var packet: HCIPacket
            var direction: HCIDirection
            var fromSensor: Bool
        }
        var items = band.packets.compactMap { record in
            record.packet.map { Item(time: record.hostTime, packet: $0, direction: record.direction ?? .received, fromSensor: false) }
        }
        items += sensor.packets.compactMap { record in
            record.packet.map {
                Item(
                    time: record.hostTime.addingTimeInterval(shift), packet: rehandled($0, from: sensorHandle, to: newHandle),
                    direction: record.direction ?? .received, fromSensor: true)
            }
        }
        items = items.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        // Move the band's next notification between the first two fragments of a sensor PDU.
        func isContinuation(_ item: Item) -> Bool {
            if case .acl(let acl) = item.packet { return item.fromSensor && !acl.isStart }
            return false
        }
        let continuation = try XCTUnwrap(items.indices.first { isContinuation(items[$0]) })
        let bandNotification = try XCTUnwrap(
            items.indices.first { index in
                guard index > continuation, !items[index].fromSensor, case .acl = items[index].packet else { return false }
                return items[index].direction == .received
            })
        var moved = items.remove(at: bandNotification)
        moved.time = items[continuation - 1].time
        items.insert(moved, at: continuation)
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("band-and-cgm.btsnoop")
        let writer = try BTSnoopWriter(url: url)
        for item in items { try writer.append(item.packet, direction: item.direction, at: item.time) }
        try writer.close()
        return url
    }

    func testEachConnectionIsItsOwnDevice() throws {
        let capture = try Self.mergedCapture()
        let connections = try LECapture.read(contentsOf: capture).attConnections
        XCTAssertEqual(connections.count, 2)
        XCTAssertEqual(Set(connections.map(\.peerAddress.description)), ["C0:FF:EE:00:00:01", "C0:11:22:33:44:55"])

        let store = try freshStore(zone: "Europe/Berlin")
        try store.setUserProfile(UserProfile(age: 40))
        let importer = Importer(store: store)
        let outcomes = try importer.run(.capture(capture)).devices
        XCTAssertEqual(outcomes.map { $0.identity?.peer.address.description }, ["C0:FF:EE:00:00:01", "C0:11:22:33:44:55"])
        XCTAssertEqual(outcomes.map(\.replayMode), [.conversation, .conversation])

        let band = try XCTUnwrap(outcomes[0].activity)
        XCTAssertEqual(band.summary.samplesRead, 3000)
        XCTAssertEqual(band.summary.minutesAdded, 51)
        XCTAssertEqual(band.summary.sessionsAdded, 1)
        XCTAssertTrue(outcomes[0].glucose.isEmpty)

        let cgm = try XCTUnwrap(outcomes[1].glucose.first)
        XCTAssertEqual(cgm.source, DeviceSource(family: "ble-cgms", serial: "C0:11:22:33:44:55", model: "SynBand"))
        XCTAssertEqual(cgm.summary.added, 6)
        XCTAssertEqual(outcomes[1].activity?.summary.samplesRead, 7)
        XCTAssertEqual(try store.glucose().map(\.mgdl), [110, 112, 120, 121, 119, 118])

        let before = try tableCounts(store)
        let again = try importer.run(.capture(capture)).devices
        XCTAssertEqual(again.count, 2)
        XCTAssertEqual(again[0].activity?.summary.minutesAdded, 0)
        XCTAssertEqual(again[0].activity?.summary.sessionsAdded, 0)
        XCTAssertEqual(again[1].glucose.first?.summary.added, 0)
        XCTAssertEqual(again[1].activity?.summary.minutesAdded, 0)
        var after = try tableCounts(store)
        XCTAssertEqual(after["import_run"], before["import_run"]! + 3)
        after["import_run"] = before["import_run"]
        XCTAssertEqual(after, before)

        // The command prints a section per device.
        let replay = try runProcess(BuiltProducts.executable("glucobridge"), ["replay", capture.path, "--store", store.path])
        XCTAssertEqual(replay.status, 0, replay.stderr)
        XCTAssertTrue(replay.stdout.hasPrefix("device 1 of 2:\nreplayed "), replay.stdout)
        XCTAssertTrue(replay.stdout.contains("\n\ndevice 2 of 2:\nreplayed "), replay.stdout)
        XCTAssertTrue(replay.stdout.contains("cgm (ble-cgms:C0:11:22:33:44:55): 7 records read: 0 readings new, 6 already stored"), replay.stdout)
    }
}
