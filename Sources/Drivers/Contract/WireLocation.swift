/// Where a driver met the bytes an error is about: what they were (a request, the reply to a
/// command, a report) and where on the wire, by the capture packet they were recorded in or, live,
/// as the conversation names its place. Error messages are made from it (`reply to
/// ReadDatabasePages(EGVData, page 3) at capture packet 41`), and a program reads its fields.
public struct WireLocation: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// What the bytes were (`request`, `reply to ReadFirmwareHeader`, `from the reader`); nil when
    /// only their place is known.
    public var message: String?
    /// The capture packet they were recorded in (its number in the file, as Wireshark counts);
    /// nil in a live conversation.
    public var packet: Int?
    /// A place named in words: the live device (`from the meter`), a step of the protocol, the end
    /// of a capture.
    public var place: String?

    public init(message: String? = nil, packet: Int? = nil, place: String? = nil) {
        self.message = message
        self.packet = packet
        self.place = place
    }

    /// A place named in words only.
    public init(stringLiteral place: String) {
        self.init(place: place)
    }

    /// The same place, the bytes being `message`.
    public func with(message: String) -> WireLocation {
        WireLocation(message: message, packet: packet, place: place)
    }

    public var description: String {
        [message, packet.map { "at capture packet \($0)" }, place].compactMap { $0 }.joined(separator: " ")
    }
}
