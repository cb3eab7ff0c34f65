import Foundation
import Model
import Transport

/// What went wrong reading a Bluetooth LE device above the ATT link. Every case names the
/// service, characteristic or request concerned; `description` is one line.
public enum BLEDriverError: DriverError, Equatable {
    /// The link failed (the device refused a request glucobridge needs, disconnected, timed out,
    /// or — in a replay — the capture does not hold a request).
    case link(BLEError)
    /// The device has none of the services glucobridge reads.
    case noSupportedService(found: [BluetoothUUID])
    /// A characteristic value did not decode (a bad E2E-CRC, a short or malformed value); the
    /// value or record was left out.
    case value(BLEValueError)
    /// A CGM Measurement record did not decode (a bad E2E-CRC, a malformed record): the record
    /// named by the time offset it carries and the time that offset gives from the session start
    /// (nil when the start is unknown); the record was left out.
    case cgmRecord(timeOffsetMinutes: UInt16, time: Date?, error: BLEValueError)
    /// The device answered a Record Access Control Point request with a failure code.
    case racpFailed(service: BLEService, request: RACPRequest, code: RACPResponseCode)
    /// The device did not answer a Record Access Control Point request.
    case racpUnanswered(service: BLEService, request: RACPRequest, seconds: Int)
    /// The device refused the write of a Record Access Control Point request.
    case racpRefused(service: BLEService, request: RACPRequest, error: BLEError)
    /// The download of stored records ended before the device's final response code.
    case racpIncomplete(service: BLEService, request: RACPRequest, reason: String)
    /// CGM readings cannot be placed in time: the Session Start Time is missing or unknown.
    case noSessionStartTime(reason: String)
    /// A Huami band's authentication or activity fetch failed, or a value it sent did not decode.
    case huami(HuamiError)

    public var description: String {
        switch self {
        case .link(let error):
            return error.description
        case .noSupportedService(let found):
            let list = found.isEmpty ? "none" : found.map(BLEDriverError.serviceName).joined(separator: ", ")
            return "the device has none of the Bluetooth services glucobridge reads (heart rate, running or cycling "
                + "speed and cadence, fitness machine, CGM, glucose); services found: \(list)"
        case .value(let error):
            return error.description
        case .cgmRecord(let offset, let time, let error):
            let when =
                time.map { "would have been \(CivilDate.wallClock(Int64($0.timeIntervalSince1970.rounded(.down))))Z" }
                ?? "its session start unknown"
            return "the CGM record at time offset \(offset) min (\(when)) was left out: \(error)"
        case .racpFailed(let service, let request, let code):
            return "\(service.name): the device answered the Record Access Control Point request "
                + "\(Hex.encode(request.bytes)) with \"\(code)\" (code \(code.rawValue)); stored records were not downloaded"
        case .racpUnanswered(let service, let request, let seconds):
            return "\(service.name): no answer to the Record Access Control Point request \(Hex.encode(request.bytes)) "
                + "within \(seconds) s; stored records were not downloaded"
        case .racpRefused(let service, let request, let error):
            return "\(service.name): the Record Access Control Point request \(Hex.encode(request.bytes)) could not be "
                + "written: \(error)"
        case .racpIncomplete(let service, let request, let reason):
            return "\(service.name): the download of stored records (\(Hex.encode(request.bytes))) ended before the "
                + "device's response code: \(reason); the records received were kept"
        case .noSessionStartTime(let reason):
            return "CGM readings cannot be placed in time: \(reason); they were counted, not stored"
        case .huami(let error):
            return error.description
        }
    }

    /// `Heart Rate (0x180D)` for a service glucobridge knows, else the UUID.
    static func serviceName(_ uuid: BluetoothUUID) -> String {
        if let known = BLEService.known(uuid) { return known.description }
        if uuid == DeviceInformation.serviceUUID { return "Device Information (0x180A)" }
        return uuid.description
    }
}
