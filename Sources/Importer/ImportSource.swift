import Drivers
import Foundation
import Transport

/// Where an import reads from. Every import, whatever the bus, goes through
/// ``Importer/run(_:context:)`` with one of these.
public enum ImportSource {
    /// A capture file, told by its content: a USB capture (usbmon pcap or pcapng, USBPcap, the
    /// out/in transcript) or a Bluetooth btsnoop file. Every supported device it holds is
    /// imported. `driver` names the USB driver for a capture without device descriptors.
    case capture(URL, driver: String? = nil)
    /// A USB device, opened when the import starts and closed when it ends.
    case usb(any USBDeviceOpening)
    /// A Bluetooth LE device, connected when the import starts and disconnected when it ends.
    case bluetooth(any BluetoothConnecting)
}

/// Opens a USB device for an import: how a live bus (libusb) or a simulator hands a device to the
/// pipeline without the pipeline knowing which.
public protocol USBDeviceOpening {
    /// Opens the device and picks its driver. Errors name the device.
    func open() throws(ImportError) -> OpenedUSBDevice
}

/// A USB device ready to be read: its transport, the driver for it, and how reports name it
/// (`usb 22a3:0047 on bus 1 address 5`).
public struct OpenedUSBDevice: USBDeviceOpening {
    package var transport: any USBTransport
    package var driver: any USBDeviceDriver.Type
    package var origin: String

    package init(_ transport: any USBTransport, driver: any USBDeviceDriver.Type, origin: String) {
        self.transport = transport
        self.driver = driver
        self.origin = origin
    }

    /// Itself: the device is open already.
    public func open() throws(ImportError) -> OpenedUSBDevice { self }
}

/// Connects to a Bluetooth LE device for an import (a live adapter, or a simulated peripheral).
public protocol BluetoothConnecting {
    /// Connects and returns the ATT bearer. Errors name the device.
    func connect() throws(ImportError) -> ConnectedPeer
}

/// A Bluetooth LE link ready for a GATT session, and how reports name it (`bluetooth AA:…`).
public struct ConnectedPeer: BluetoothConnecting {
    package var bearer: any ATTBearer
    package var origin: String

    package init(_ bearer: any ATTBearer, origin: String) {
        self.bearer = bearer
        self.origin = origin
    }

    /// Itself: the link is up already.
    public func connect() throws(ImportError) -> ConnectedPeer { self }
}
