import Drivers
import Foundation
import Importer
import Transport
import TransportLibUSB
import TransportSCSI

/// A reader on this machine's USB bus, opened through libusb when the import starts:
/// `importer.run(.usb(LibUSBDevice.first(in: context)))`.
package struct LibUSBDevice: USBDeviceOpening {
    private enum Choice {
        case first
        case at(USBDeviceLocation)
    }

    private let choice: Choice
    private let context: LibUSBContext
    /// Seconds a USB disk's SCSI nodes may take to appear after the device does.
    static let diskWait = 15.0

    /// The first supported reader found on the bus.
    package static func first(in context: LibUSBContext) -> LibUSBDevice {
        LibUSBDevice(choice: .first, context: context)
    }

    /// The reader at `location` (as udev names it to `glucobridge-import@.service`, or as a
    /// hotplug event reports it).
    package static func at(_ location: USBDeviceLocation, in context: LibUSBContext) -> LibUSBDevice {
        LibUSBDevice(choice: .at(location), context: context)
    }

    /// Opens the device and picks its driver. Throws `.transport(.noDevice)` when no supported
    /// reader is plugged in, and `.transport(.openFailed)` when nothing is at the location, it
    /// cannot be opened, or no driver supports the device there.
    package func open() throws(ImportError) -> OpenedUSBDevice {
        let location: USBDeviceLocation
        switch choice {
        case .first:
            let found: [USBDeviceDescription]
            do {
                found = try context.devices(matching: DriverRegistry.usbProducts.map { ($0.vendorID, $0.productID) })
            } catch {
                throw .transport(error)
            }
            guard let device = found.first else { throw .transport(.noDevice) }
            location = USBDeviceLocation(bus: device.bus, address: device.address)
        case .at(let chosen):
            location = chosen
        }
        let transport: LibUSBTransport
        do {
            transport = try LibUSBTransport(context: context, bus: location.bus, address: location.address)
        } catch .noDevice {
            throw .transport(
                .openFailed(
                    device: location.description, reason: "nothing is connected there (it was unplugged, or its address changed)"))
        } catch {
            throw .transport(error)
        }
        let device = transport.device
        guard let driver = DriverRegistry.usbDriver(vendorID: device.vendorID, productID: device.productID) else {
            transport.close()
            throw .transport(.openFailed(device: "\(device.idString) on \(location)", reason: "no glucobridge driver supports this device"))
        }
        let origin = "usb \(device.idString) on \(location)"
        guard device.interfaces.contains(where: { $0.interfaceClass == BulkOnly.interfaceClass }) else {
            return OpenedUSBDevice(transport, driver: driver, origin: origin)
        }
        // A USB disk stays with the kernel's usb-storage driver: its commands go to the disk's
        // SCSI node, found through sysfs (made a moment after the device, when it was just
        // plugged in, as the daemon sees it).
        transport.close()
        guard let disk = KernelDisk.find(bus: location.bus, address: location.address, waiting: Self.diskWait) else {
            throw .transport(
                .openFailed(
                    device: "\(device.idString) on \(location)",
                    reason: "the kernel made no SCSI disk for it in \(Int(Self.diskWait)) s (is usb-storage loaded? `glucobridge doctor` checks)"))
        }
        do {
            return OpenedUSBDevice(try SGIOUSBTransport(device: device, disk: disk), driver: driver, origin: "\(origin) (\(disk.node ?? ""))")
        } catch {
            throw .transport(error)
        }
    }
}
