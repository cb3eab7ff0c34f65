import Drivers
import Foundation
import Importer
import Transport
import TransportLibUSB

extension Importer {
    /// Imports from the first supported device on the USB bus, recording the session to
    /// `recordURL` as a usbmon pcap when given.
    public func importLive(context: LibUSBContext, recordTo recordURL: URL? = nil) throws(ImportError) -> ImportOutcome {
        let found: [USBDeviceDescription]
        do {
            found = try context.devices(matching: DriverRegistry.usbProducts.map { ($0.vendorID, $0.productID) })
        } catch {
            throw .transport(error)
        }
        guard let device = found.first,
              let driver = DriverRegistry.usbDriver(vendorID: device.vendorID, productID: device.productID) else {
            throw .transport(.noDevice)
        }
        let transport: LibUSBTransport
        do {
            transport = try LibUSBTransport(context: context, bus: device.bus, address: device.address)
        } catch {
            throw .transport(error)
        }
        logger.info("reading device", metadata: ["device": "\(device.idString)", "bus": "\(device.bus)", "address": "\(device.address)"])
        return try importSession(
            over: transport, driver: driver, origin: "usb \(device.idString) on bus \(device.bus) address \(device.address)",
            recordTo: recordURL)
    }

    /// Imports from the reader at `location` (as udev names it to `glucobridge-import@.service`,
    /// or as a hotplug event reports it). `wrap` may put a layer around the opened device (the
    /// daemon adds one that aborts the import when the reader leaves or the daemon stops).
    ///
    /// Throws `.transport(.openFailed)` when nothing is at `location` or it cannot be opened, and
    /// `.transport(.openFailed)` naming the ids when no driver supports the device there.
    public func importDevice(
        at location: USBDeviceLocation, context: LibUSBContext, recordTo recordURL: URL? = nil,
        wrap: (LibUSBTransport) -> any USBTransport = { $0 }
    ) throws(ImportError) -> ImportOutcome {
        let transport: LibUSBTransport
        do {
            transport = try LibUSBTransport(context: context, bus: location.bus, address: location.address)
        } catch .noDevice {
            throw .transport(.openFailed(
                device: location.description, reason: "nothing is connected there (it was unplugged, or its address changed)"))
        } catch {
            throw .transport(error)
        }
        let device = transport.device
        guard let driver = DriverRegistry.usbDriver(vendorID: device.vendorID, productID: device.productID) else {
            transport.close()
            throw .transport(.openFailed(
                device: "\(device.idString) on \(location)", reason: "no glucobridge driver supports this device"))
        }
        logger.info("reading device", metadata: [
            "device": "\(device.idString)", "bus": "\(location.bus)", "address": "\(location.address)", "driver": "\(driver.family)",
        ])
        return try importSession(
            over: wrap(transport), driver: driver, origin: "usb \(device.idString) on \(location)", recordTo: recordURL)
    }
}
