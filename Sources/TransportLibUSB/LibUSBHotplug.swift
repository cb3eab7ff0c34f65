import CLibUSB
import Foundation
import Transport

/// A device arriving on or leaving the USB bus.
package struct USBHotplugEvent: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case arrived, left
    }

    package var kind: Kind
    package var vendorID: UInt16
    package var productID: UInt16
    package var location: USBDeviceLocation

    package init(kind: Kind, vendorID: UInt16, productID: UInt16, location: USBDeviceLocation) {
        self.kind = kind
        self.vendorID = vendorID
        self.productID = productID
        self.location = location
    }

    /// `22a3:0047`.
    package var idString: String { USBDeviceDescription(vendorID: vendorID, productID: productID).idString }
}

extension LibUSBContext {
    /// Whether this libusb can report devices arriving and leaving (`LIBUSB_CAP_HAS_HOTPLUG`).
    package static var supportsHotplug: Bool {
        libusb_has_capability(UInt32(LIBUSB_CAP_HAS_HOTPLUG.rawValue)) != 0
    }
}

/// Reports supported devices arriving and leaving, through libusb's hotplug API.
///
/// `libusb_hotplug_register_callback` is called with `LIBUSB_HOTPLUG_ENUMERATE`, so devices
/// already connected are reported as arrivals first (libusb may report such a device twice).
/// libusb delivers hotplug callbacks only from inside its event handling, so one thread blocks in
/// `libusb_handle_events_timeout_completed` (for a day at a time) until `stop()` wakes it with
/// `libusb_interrupt_event_handler`: there is no polling and no periodic wake-up.
///
/// Sendable: the mutable state (the stop flag, the callback handle) is guarded by a lock, and the
/// callback only reads immutable properties and yields to an `AsyncStream` continuation. The
/// event thread holds the context and the stop flag, not the monitor, so dropping the monitor
/// stops it.
package final class LibUSBHotplugMonitor: @unchecked Sendable {
    /// Arrivals and departures of devices whose ids or vendors are in the lists given at `init`, in order.
    /// Finishes when the monitor stops.
    package let events: AsyncStream<USBHotplugEvent>

    private let continuation: AsyncStream<USBHotplugEvent>.Continuation
    private let context: LibUSBContext
    private let ids: [(vendor: UInt16, product: UInt16)]
    private let vendors: [UInt16]
    private let lock = NSLock()
    private let stopFlag = StopFlag()
    private var callbackHandle: libusb_hotplug_callback_handle = 0
    private var eventThreadDone: DispatchSemaphore?

    /// Starts watching for devices with these vendor and product ids, and for every product of
    /// `vendors`. Throws `.usbUnavailable` when this libusb has no hotplug support or the
    /// callback cannot be registered.
    package init(context: LibUSBContext, ids: [(vendor: UInt16, product: UInt16)], vendors: [UInt16] = []) throws(TransportError) {
        guard LibUSBContext.supportsHotplug else {
            throw .usbUnavailable("this libusb build cannot report devices arriving and leaving (no LIBUSB_CAP_HAS_HOTPLUG)")
        }
        (events, continuation) = AsyncStream.makeStream(of: USBHotplugEvent.self, bufferingPolicy: .unbounded)
        self.context = context
        self.ids = ids
        self.vendors = vendors

        let wanted = Int32(LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED.rawValue | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT.rawValue)
        var handle: libusb_hotplug_callback_handle = 0
        let rc = libusb_hotplug_register_callback(
            context.pointer, wanted, Int32(LIBUSB_HOTPLUG_ENUMERATE.rawValue),
            LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY,
            { _, device, event, userData in
                guard let device, let userData else { return 0 }
                Unmanaged<LibUSBHotplugMonitor>.fromOpaque(userData).takeUnretainedValue().deliver(device, event)
                return 0
            },
            Unmanaged.passUnretained(self).toOpaque(), &handle)
        guard rc == LibUSB.success else {
            continuation.finish()
            throw .usbUnavailable("cannot register for USB hotplug events: \(LibUSB.describe(rc))")
        }

        let done = DispatchSemaphore(value: 0)
        lock.withLock {
            callbackHandle = handle
            eventThreadDone = done
        }
        let stopFlag = self.stopFlag
        let thread = Thread {
            // libusb_handle_events_completed waits at most 60 s, so an idle daemon would wake
            // every minute; a day is within libusb's millisecond poll timeout (a C int), and stop()
            // wakes the wait at once.
            while !stopFlag.isSet {
                var day = timeval(tv_sec: 86_400, tv_usec: 0)
                _ = libusb_handle_events_timeout_completed(context.pointer, &day, nil)
            }
            done.signal()
        }
        thread.name = "glucobridge.usb-hotplug"
        thread.start()
    }

    deinit {
        stop()
    }

    /// Stops reporting: deregisters the callback, wakes and ends the event thread, and finishes
    /// `events`. Safe to call more than once.
    package func stop() {
        guard stopFlag.set() else { return }
        let (handle, done) = lock.withLock { (callbackHandle, eventThreadDone) }
        guard let done else { return }
        libusb_hotplug_deregister_callback(context.pointer, handle)
        libusb_interrupt_event_handler(context.pointer)
        done.wait()
        continuation.finish()
    }

    /// Called by libusb on the event thread (or during registration, for devices already there).
    private func deliver(_ device: OpaquePointer, _ event: libusb_hotplug_event) {
        let descriptor = LibUSBContext.deviceDescriptor(device)
        guard
            vendors.contains(descriptor.idVendor) || ids.contains(where: { $0.vendor == descriptor.idVendor && $0.product == descriptor.idProduct })
        else { return }
        let kind: USBHotplugEvent.Kind = event == LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT ? .left : .arrived
        let location = USBDeviceLocation(bus: UInt16(libusb_get_bus_number(device)), address: libusb_get_device_address(device))
        continuation.yield(USBHotplugEvent(kind: kind, vendorID: descriptor.idVendor, productID: descriptor.idProduct, location: location))
    }
}

/// A flag set once, read from any thread.
private final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }

    /// Sets the flag; false when it was set already.
    func set() -> Bool {
        lock.withLock {
            defer { value = true }
            return !value
        }
    }
}
