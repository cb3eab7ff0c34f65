/// Standard USB descriptors as bytes: parsed from captures, and written into recordings so a
/// replay can tell which device it holds.
package enum USBDescriptors {
    package static let deviceType: UInt8 = 1
    package static let configurationType: UInt8 = 2
    package static let interfaceType: UInt8 = 4
    package static let endpointType: UInt8 = 5

    /// The GET_DESCRIPTOR request for the device descriptor.
    package static let getDeviceDescriptor = USBControlSetup(requestType: 0x80, request: 0x06, value: 0x0100, index: 0, length: 18)

    /// The GET_DESCRIPTOR request for configuration descriptor 0, `length` bytes.
    package static func getConfigurationDescriptor(length: UInt16) -> USBControlSetup {
        USBControlSetup(requestType: 0x80, request: 0x06, value: 0x0200, index: 0, length: length)
    }

    /// The transfer type of an endpoint, from its descriptor's `bmAttributes` (bits 0–1: 0 control,
    /// 1 isochronous, 2 bulk, 3 interrupt; USB 2.0 specification, table 9-13). usbmon and USBPcap
    /// number transfer types differently (0 isochronous, 1 interrupt, 2 control, 3 bulk), which
    /// `USBTransferType`'s raw values follow: the two must never be mixed.
    package static func transferType(bmAttributes: UInt8) -> USBTransferType {
        switch bmAttributes & 0x03 {
        case 0: .control
        case 1: .isochronous
        case 2: .bulk
        default: .interrupt
        }
    }

    /// An endpoint descriptor's `bmAttributes` for a transfer type (no synchronisation or usage bits).
    package static func bmAttributes(for type: USBTransferType) -> UInt8 {
        switch type {
        case .control: 0
        case .isochronous: 1
        case .bulk: 2
        case .interrupt: 3
        }
    }

    /// Vendor and product ids from an 18-byte device descriptor.
    package static func identity(fromDeviceDescriptor bytes: [UInt8]) -> (vendorID: UInt16, productID: UInt16)? {
        guard bytes.count >= 14, bytes[1] == deviceType else { return nil }
        return (UInt16(bytes[8]) | UInt16(bytes[9]) << 8, UInt16(bytes[10]) | UInt16(bytes[11]) << 8)
    }

    /// The interfaces (alternate setting 0) in a configuration descriptor, with their endpoints.
    /// Parsing stops quietly at the first malformed descriptor.
    package static func interfaces(fromConfigurationDescriptor bytes: [UInt8]) -> [USBInterface] {
        var interfaces: [USBInterface] = []
        var offset = 0
        var inAlternate = false
        while offset + 2 <= bytes.count {
            let length = Int(bytes[offset])
            guard length >= 2, offset + length <= bytes.count else { break }
            let type = bytes[offset + 1]
            if type == interfaceType, length >= 9 {
                inAlternate = bytes[offset + 3] != 0
                if !inAlternate {
                    interfaces.append(
                        USBInterface(
                            number: bytes[offset + 2], interfaceClass: bytes[offset + 5],
                            interfaceSubclass: bytes[offset + 6], interfaceProtocol: bytes[offset + 7], endpoints: []))
                }
            } else if type == endpointType, length >= 7, !inAlternate, !interfaces.isEmpty {
                let endpoint = USBEndpoint(
                    address: bytes[offset + 2],
                    type: transferType(bmAttributes: bytes[offset + 3]),
                    maxPacketSize: Int(bytes[offset + 4]) | Int(bytes[offset + 5] & 0x07) << 8)
                interfaces[interfaces.count - 1].endpoints.append(endpoint)
            }
            offset += length
        }
        return interfaces
    }

    /// An 18-byte device descriptor for `device` (USB 2.0, one configuration).
    package static func deviceDescriptor(for device: USBDeviceDescription) -> [UInt8] {
        [
            18, deviceType, 0x00, 0x02, 0, 0, 0, 64,
            UInt8(device.vendorID & 0xFF), UInt8(device.vendorID >> 8),
            UInt8(device.productID & 0xFF), UInt8(device.productID >> 8),
            0x00, 0x01, 0, 0, 0, 1,
        ]
    }

    /// A configuration descriptor listing `device`'s interfaces and endpoints.
    package static func configurationDescriptor(for device: USBDeviceDescription) -> [UInt8] {
        var body: [UInt8] = []
        for interface in device.interfaces {
            body += [
                9, interfaceType, interface.number, 0, UInt8(interface.endpoints.count),
                interface.interfaceClass, interface.interfaceSubclass, interface.interfaceProtocol, 0,
            ]
            for endpoint in interface.endpoints {
                body += [
                    7, endpointType, endpoint.address, bmAttributes(for: endpoint.type),
                    UInt8(endpoint.maxPacketSize & 0xFF), UInt8(endpoint.maxPacketSize >> 8), 0,
                ]
            }
        }
        let total = UInt16(9 + body.count)
        return [9, configurationType, UInt8(total & 0xFF), UInt8(total >> 8), UInt8(device.interfaces.count), 1, 0, 0x80, 250] + body
    }
}
