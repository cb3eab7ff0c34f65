import Transport

/// The error a driver's session throws: its family's own type, whose message names what was
/// wrong and where (a packet, a page, a record, an offset in a file). The import pipeline takes
/// every family's error through this protocol, never by casting to a family's type.
public protocol DriverError: Error, CustomStringConvertible, Sendable {
    /// The failure of the wire, or of the replayed capture, underneath: a timeout, a device gone,
    /// a request the capture does not hold. Nil when the bytes arrived and were wrong.
    var transportError: TransportError? { get }
}

extension DriverError {
    public var transportError: TransportError? { nil }
}

/// A session's error as the pipeline receives it from a family it knows only by the contract.
package struct SessionFailure: Error, CustomStringConvertible {
    /// The family's own error.
    package var error: any DriverError

    package init(_ error: any DriverError) {
        self.error = error
    }

    package var description: String { error.description }
}
