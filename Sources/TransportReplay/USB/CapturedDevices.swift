import CaptureUSB
import Foundation
import Transport

extension RecordedUSBDevice {
    /// Splits a capture by (bus, device address); devices that only answered control requests
    /// (hubs, other enumerated devices) are kept too, in the order they first appear.
    public static func devices(in capture: USBCapture) -> [RecordedUSBDevice] {
        var order: [UInt32] = []
        var groups: [UInt32: [USBTransfer]] = [:]
        for transfer in capture.transfers {
            let key = UInt32(transfer.bus) << 8 | UInt32(transfer.device)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(transfer)
        }
        return order.map { RecordedUSBDevice(transfers: groups[$0]!) }
    }
}
