import Foundation

/// Hand-assembly of capture bytes for tests: every field written explicitly, in a chosen order.
struct ByteBuilder {
    var bytes: [UInt8] = []
    var bigEndian = false

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: UInt16) { put(UInt64(value), size: 2) }

    mutating func u32(_ value: UInt32) { put(UInt64(value), size: 4) }

    mutating func i32(_ value: Int32) { u32(UInt32(bitPattern: value)) }

    mutating func u64(_ value: UInt64) { put(value, size: 8) }

    mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }

    mutating func raw(_ more: [UInt8]) { bytes.append(contentsOf: more) }

    mutating func pad(to multiple: Int) {
        while bytes.count % multiple != 0 { bytes.append(0) }
    }

    private mutating func put(_ value: UInt64, size: Int) {
        for index in 0..<size {
            let shift = bigEndian ? (size - 1 - index) * 8 : index * 8
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}

/// One usbmon event with the fields a test sets; the rest take the kernel's usual values.
struct UsbmonEvent {
    var id: UInt64
    var event: Character
    var type: UInt8
    var endpoint: UInt8
    var device: UInt8 = 5
    var bus: UInt16 = 1
    var setup: [UInt8]? = nil
    var seconds: Int64
    var micros: Int32
    var status: Int32 = 0
    var length: UInt32
    var data: [UInt8]? = nil
    /// len_cap when it differs from the data count.
    var lenCap: UInt32? = nil

    /// The usbmon header (always little-endian) cut to `headerLength`, then the data.
    func bytes(headerLength: Int = 64) -> [UInt8] {
        var b = ByteBuilder()
        b.u64(id)
        b.u8(event.asciiValue!)
        b.u8(type)
        b.u8(endpoint)
        b.u8(device)
        b.u16(bus)
        b.u8(setup == nil ? UInt8(ascii: "-") : 0)
        b.u8(data == nil ? UInt8(ascii: endpoint & 0x80 != 0 ? "<" : ">") : 0)
        b.i64(seconds)
        b.i32(micros)
        b.i32(status)
        b.u32(length)
        b.u32(lenCap ?? UInt32(data?.count ?? 0))
        b.raw(setup ?? [UInt8](repeating: 0, count: 8))
        b.i32(0)  // interval
        b.i32(0)  // start_frame
        b.u32(0)  // xfer_flags
        b.u32(0)  // ndesc
        precondition(b.bytes.count == 64)
        return Array(b.bytes.prefix(headerLength)) + (data ?? [])
    }
}

/// A classic pcap file: global header, then each packet with its record header.
struct PcapFile {
    var bigEndian = false
    var nanoseconds = false
    var linkType: UInt32 = 220
    var snapLength: UInt32 = 262_144
    var bytes: [UInt8]

    init(bigEndian: Bool = false, nanoseconds: Bool = false, linkType: UInt32 = 220) {
        self.bigEndian = bigEndian
        self.nanoseconds = nanoseconds
        self.linkType = linkType
        var b = ByteBuilder(bigEndian: bigEndian)
        b.u32(nanoseconds ? 0xA1B2_3C4D : 0xA1B2_C3D4)
        b.u16(2)
        b.u16(4)
        b.i32(0)
        b.u32(0)
        b.u32(snapLength)
        b.u32(linkType)
        bytes = b.bytes
    }

    /// Appends a record; `originalLength` larger than the packet means the snaplen cut it.
    mutating func add(_ packet: [UInt8], seconds: UInt32, fraction: UInt32, originalLength: Int? = nil) {
        var b = ByteBuilder(bigEndian: bigEndian)
        b.u32(seconds)
        b.u32(fraction)
        b.u32(UInt32(packet.count))
        b.u32(UInt32(originalLength ?? packet.count))
        b.raw(packet)
        bytes += b.bytes
    }

    /// Appends a usbmon event, with the record time taken from the event's own time.
    mutating func add(_ event: UsbmonEvent, headerLength: Int = 64) {
        let fraction = nanoseconds ? UInt32(event.micros) * 1000 : UInt32(event.micros)
        add(event.bytes(headerLength: headerLength), seconds: UInt32(event.seconds), fraction: fraction)
    }
}

/// pcapng blocks in a chosen byte order.
struct PcapngBuilder {
    var bigEndian = false
    var bytes: [UInt8] = []

    mutating func block(type: UInt32, body: [UInt8]) {
        var b = ByteBuilder(bigEndian: bigEndian)
        let padded = (body.count + 3) / 4 * 4
        let total = UInt32(12 + padded)
        b.u32(type)
        b.u32(total)
        b.raw(body)
        b.pad(to: 4)
        b.u32(total)
        bytes += b.bytes
    }

    mutating func sectionHeader() {
        var b = ByteBuilder(bigEndian: bigEndian)
        b.u32(0x1A2B_3C4D)
        b.u16(1)
        b.u16(0)
        b.i64(-1)
        block(type: 0x0A0D_0D0A, body: b.bytes)
    }

    /// An IDB; `tsresol` adds an if_tsresol option.
    mutating func interface(linkType: UInt16, tsresol: UInt8? = nil) {
        var b = ByteBuilder(bigEndian: bigEndian)
        b.u16(linkType)
        b.u16(0)
        b.u32(262_144)
        if let tsresol {
            b.u16(9)
            b.u16(1)
            b.u8(tsresol)
            b.pad(to: 4)
            b.u16(0)  // opt_endofopt
            b.u16(0)
        }
        block(type: 1, body: b.bytes)
    }

    mutating func enhancedPacket(interface: UInt32, units: UInt64, packet: [UInt8], originalLength: Int? = nil) {
        var b = ByteBuilder(bigEndian: bigEndian)
        b.u32(interface)
        b.u32(UInt32(units >> 32))
        b.u32(UInt32(units & 0xFFFF_FFFF))
        b.u32(UInt32(packet.count))
        b.u32(UInt32(originalLength ?? packet.count))
        b.raw(packet)
        block(type: 6, body: b.bytes)
    }

    mutating func simplePacket(_ packet: [UInt8]) {
        var b = ByteBuilder(bigEndian: bigEndian)
        b.u32(UInt32(packet.count))
        b.raw(packet)
        block(type: 3, body: b.bytes)
    }
}

/// A USBPcap packet: the 27-byte header (plus the stage byte for control), then the data.
func usbpcapPacket(
    irpId: UInt64, status: UInt32 = 0, function: UInt16, completion: Bool, bus: UInt16 = 1, device: UInt16 = 3,
    endpoint: UInt8, transfer: UInt8, stage: UInt8? = nil, data: [UInt8] = []
) -> [UInt8] {
    var b = ByteBuilder()
    b.u16(stage == nil ? 27 : 28)
    b.u64(irpId)
    b.u32(status)
    b.u16(function)
    b.u8(completion ? 1 : 0)
    b.u16(bus)
    b.u16(device)
    b.u8(endpoint)
    b.u8(transfer)
    b.u32(UInt32(data.count))
    if let stage { b.u8(stage) }
    b.raw(data)
    return b.bytes
}
