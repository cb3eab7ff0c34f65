import CLibUSB
import Foundation
import ImportTestSupport
import XCTest

@testable import Transport
@testable import TransportLibUSB

final class LibUSBTests: XCTestCase {
    private static let dexcomID: (vendor: UInt16, product: UInt16) = (0x22a3, 0x0047)

    // MARK: Against this machine's USB stack

    func testContextInitialises() throws {
        _ = try LibUSBContext()
        XCTAssertTrue(LibUSBContext.libraryVersion.hasPrefix("1."), LibUSBContext.libraryVersion)
    }

    /// libusb lists exactly the devices sysfs shows: none when there is no USB bus.
    func testEnumerationAgreesWithSysfs() throws {
        let devices = try LibUSBContext().devices()
        let found = Set(devices.map { SysfsDevice(bus: $0.bus, address: $0.address, vendorID: $0.vendorID, productID: $0.productID) })
        XCTAssertEqual(found.count, devices.count, "a bus/address pair was listed twice")
        XCTAssertEqual(found, Self.sysfsDevices())
    }

    func testFilteredEnumerationKeepsOnlyMatchingIDs() throws {
        let context = try LibUSBContext()
        let all = try context.devices()
        let dexcom = try context.devices(matching: [Self.dexcomID])
        XCTAssertEqual(dexcom, all.filter { $0.vendorID == 0x22a3 && $0.productID == 0x0047 })
        XCTAssertEqual(try context.devices(matching: []), [])
    }

    func testOpeningAnAbsentReceiverThrowsNoDevice() throws {
        let context = try LibUSBContext()
        if try !context.devices(matching: [Self.dexcomID]).isEmpty {
            throw XCTSkip("a Dexcom receiver is connected")
        }
        XCTAssertThrowsError(try LibUSBTransport(context: context, vendorID: 0x22a3, productID: 0x0047)) {
            XCTAssertEqual($0 as? TransportError, .noDevice)
        }
    }

    func testOpeningAnImpossibleAddressThrowsNoDevice() throws {
        // USB addresses stop at 127, so nothing can be there on any machine.
        XCTAssertThrowsError(try LibUSBTransport(context: LibUSBContext(), bus: 1, address: 200)) {
            XCTAssertEqual($0 as? TransportError, .noDevice)
        }
    }

    func testNoDeviceDescription() {
        XCTAssertEqual(TransportError.noDevice.description, "no supported device found")
    }

    // MARK: Error mapping

    func testErrorNamesComeFromLibUSB() {
        XCTAssertEqual(LibUSB.errorName(Int32(LIBUSB_ERROR_TIMEOUT.rawValue)), "LIBUSB_ERROR_TIMEOUT")
        XCTAssertEqual(
            LibUSB.describe(Int32(LIBUSB_ERROR_ACCESS.rawValue)),
            "LIBUSB_ERROR_ACCESS: Access denied (insufficient permissions)")
    }

    func testTransferErrorMapping() {
        let name = "22a3:0047 on bus 1 address 5"
        XCTAssertEqual(LibUSB.transferError(Int32(LIBUSB_ERROR_TIMEOUT.rawValue), endpoint: 0x83, device: name), .timeout(endpoint: 0x83))
        XCTAssertEqual(LibUSB.transferError(Int32(LIBUSB_ERROR_NO_DEVICE.rawValue), endpoint: 0x02, device: name), .disconnected(name))
        XCTAssertEqual(
            LibUSB.transferError(Int32(LIBUSB_ERROR_PIPE.rawValue), endpoint: 0x02, device: name),
            .transferFailed(endpoint: 0x02, reason: "endpoint stalled"))
        XCTAssertEqual(
            LibUSB.transferError(Int32(LIBUSB_ERROR_IO.rawValue), endpoint: 0x83, device: name),
            .transferFailed(endpoint: 0x83, reason: "LIBUSB_ERROR_IO"))
        guard case .transferFailed(0x83, let reason) = LibUSB.transferError(Int32(LIBUSB_ERROR_OVERFLOW.rawValue), endpoint: 0x83, device: name)
        else { return XCTFail("overflow is a transfer failure") }
        XCTAssertTrue(reason.hasPrefix("LIBUSB_ERROR_OVERFLOW"), reason)
    }

    func testOpenErrorMapping() {
        let name = LibUSB.deviceName(vendorID: 0x22a3, productID: 0x0047, bus: 1, address: 5)
        XCTAssertEqual(name, "22a3:0047 on bus 1 address 5")
        guard case .openFailed(let device, let reason) = LibUSB.openError(Int32(LIBUSB_ERROR_ACCESS.rawValue), device: name) else {
            return XCTFail("access denied is an open failure")
        }
        XCTAssertEqual(device, name)
        XCTAssertTrue(reason.hasPrefix("no permission: install the glucobridge udev rules or run as a member of plugdev"), reason)
        XCTAssertEqual(LibUSB.openError(Int32(LIBUSB_ERROR_NO_DEVICE.rawValue), device: name), .disconnected(name))
        XCTAssertEqual(
            LibUSB.openError(Int32(LIBUSB_ERROR_IO.rawValue), device: name),
            .openFailed(device: name, reason: "LIBUSB_ERROR_IO: Input/Output Error"))
    }

    func testClaimErrorMapping() {
        let name = "22a3:0047 on bus 1 address 5"
        guard case .claimFailed(1, let reason) = LibUSB.claimError(Int32(LIBUSB_ERROR_BUSY.rawValue), interface: 1, device: name) else {
            return XCTFail("busy is a claim failure")
        }
        XCTAssertTrue(reason.hasPrefix("another program holds it"), reason)
        XCTAssertEqual(LibUSB.claimError(Int32(LIBUSB_ERROR_NO_DEVICE.rawValue), interface: 1, device: name), .disconnected(name))
        guard case .claimFailed(0, let detachReason) = LibUSB.detachError(Int32(LIBUSB_ERROR_IO.rawValue), interface: 0, device: name) else {
            return XCTFail("a failed detach is a claim failure")
        }
        XCTAssertEqual(detachReason, "cannot detach the kernel driver: LIBUSB_ERROR_IO: Input/Output Error")
    }

    // MARK: Timeouts and descriptors

    func testDurationToMilliseconds() {
        XCTAssertEqual(LibUSB.milliseconds(.seconds(1)), 1000)
        XCTAssertEqual(LibUSB.milliseconds(.milliseconds(250)), 250)
        XCTAssertEqual(LibUSB.milliseconds(.seconds(2.5)), 2500)
        XCTAssertEqual(LibUSB.milliseconds(.microseconds(1500)), 2, "fractions round up")
        XCTAssertEqual(LibUSB.milliseconds(.nanoseconds(1)), 1, "never 0, which libusb takes as no timeout")
        XCTAssertEqual(LibUSB.milliseconds(.zero), 1)
        XCTAssertEqual(LibUSB.milliseconds(.seconds(-5)), 1)
        XCTAssertEqual(LibUSB.milliseconds(.milliseconds(-1)), 1)
        XCTAssertEqual(LibUSB.milliseconds(.seconds(4_294_967) + .milliseconds(295)), UInt32.max)
        XCTAssertEqual(LibUSB.milliseconds(.seconds(4_294_967) + .milliseconds(294)), UInt32.max - 1)
        XCTAssertEqual(LibUSB.milliseconds(.seconds(4_294_967) + .milliseconds(296)), UInt32.max)
        XCTAssertEqual(LibUSB.milliseconds(.seconds(4_294_968)), UInt32.max)
        XCTAssertEqual(LibUSB.milliseconds(.seconds(Int64.max)), UInt32.max)
    }

    func testTransferTypeFromAttributes() {
        XCTAssertEqual(USBDescriptors.transferType(bmAttributes: 0x00), .control)
        XCTAssertEqual(USBDescriptors.transferType(bmAttributes: 0x01), .isochronous)
        XCTAssertEqual(USBDescriptors.transferType(bmAttributes: 0x02), .bulk)
        XCTAssertEqual(USBDescriptors.transferType(bmAttributes: 0x03), .interrupt)
        XCTAssertEqual(USBDescriptors.transferType(bmAttributes: 0x0D), .isochronous, "synchronisation bits are ignored")
        XCTAssertEqual(USBDescriptors.transferType(bmAttributes: 0x13), .interrupt, "usage bits are ignored")
    }

    func testMaxPacketSizeIgnoresTransactionBits() {
        XCTAssertEqual(LibUSB.maxPacketSize(wMaxPacketSize: 0x0040), 64)
        XCTAssertEqual(LibUSB.maxPacketSize(wMaxPacketSize: 0x0008), 8)
        XCTAssertEqual(LibUSB.maxPacketSize(wMaxPacketSize: 0x1400), 1024)
    }

    // MARK: sysfs

    private struct SysfsDevice: Hashable {
        var bus: UInt16
        var address: UInt8
        var vendorID: UInt16
        var productID: UInt16
    }

    /// The devices under `/sys/bus/usb/devices` (root hubs included, interfaces — the entries
    /// with a colon — left out); empty when the directory is absent.
    private static func sysfsDevices() -> Set<SysfsDevice> {
        let root = URL(fileURLWithPath: "/sys/bus/usb/devices")
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: root.path) else { return [] }
        func value(_ entry: String, _ file: String, radix: Int) -> UInt? {
            guard let text = try? String(contentsOf: root.appendingPathComponent(entry).appendingPathComponent(file), encoding: .utf8)
            else { return nil }
            return UInt(text.trimmingCharacters(in: .whitespacesAndNewlines), radix: radix)
        }
        return Set(
            entries.filter { !$0.contains(":") }.compactMap { entry in
                guard let bus = value(entry, "busnum", radix: 10), let address = value(entry, "devnum", radix: 10),
                    let vendor = value(entry, "idVendor", radix: 16), let product = value(entry, "idProduct", radix: 16)
                else { return nil }
                return SysfsDevice(bus: UInt16(bus), address: UInt8(address), vendorID: UInt16(vendor), productID: UInt16(product))
            })
    }

    /// libusb's hotplug on this machine: registration works (or the lack of support is reported
    /// plainly), nothing arrives without a bus, and stopping ends the event stream.
    func testHotplugMonitorStartsAndStops() async throws {
        let context = try LibUSBContext()
        guard LibUSBContext.supportsHotplug else {
            XCTAssertThrowsError(try LibUSBHotplugMonitor(context: context, ids: [(0x22A3, 0x0047)])) {
                XCTAssertTrue("\($0)".hasPrefix("USB is not available on this machine: this libusb build cannot report"), "\($0)")
            }
            return
        }
        let monitor = try LibUSBHotplugMonitor(context: context, ids: [(0x22A3, 0x0047)])
        let present = try context.devices(matching: [(0x22A3, 0x0047)]).map { USBDeviceLocation(bus: $0.bus, address: $0.address) }
        monitor.stop()
        var arrivals: [USBDeviceLocation] = []
        for await event in monitor.events {
            XCTAssertEqual(event.kind, .arrived)
            arrivals.append(event.location)
        }
        XCTAssertEqual(Set(arrivals), Set(present), "devices already connected are reported as arrivals")
        monitor.stop()
    }
}
