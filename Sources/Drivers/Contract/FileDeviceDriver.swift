/// The driver of a family read from a file a device wrote (a watch's FIT file copied off its USB
/// disk): its coordinator (matched by the file's signature) and its session, which decodes one
/// file's bytes into the one download type.
package protocol FileDeviceDriver: DeviceCoordinator, Sendable {
    /// The file-type error its session throws, naming the file and where in it.
    associatedtype SessionError: DriverError
    /// Decodes one file; `name` is how errors name it (its path).
    static func session(file bytes: [UInt8], name: String) throws(SessionError) -> DriverDownload
}
