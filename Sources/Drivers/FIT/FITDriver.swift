import Foundation
import Model

/// FIT files (Garmin watches and bike computers, and other devices that write FIT), matched by
/// `.FIT` at bytes 8–11 of a header of at least 12 bytes (FIT SDK, "FIT File Header"). The
/// session decodes a file, checks both CRCs and keeps its activity or monitoring content.
package enum FITDriver: FileDeviceDriver {
    package static let family: DeviceFamily = "fit"
    package static let matches: [DeviceMatch] = [
        .fileSignature(FileSignature(offset: 8, bytes: Array(".FIT".utf8)) { FITDecoder.isFIT(prefix: $0) })
    ]
    package static let capabilities: DeviceCapabilities = [.activity, .exercise]
    package static var summary: String { FITActivityFile.summary }

    /// Decodes `bytes`: a file whose damage loses more than its tail (a wrong CRC, a damaged
    /// header, an unreadable record) is refused; a cut one keeps its whole messages, the cut named
    /// in ``DriverDownload/file``. A FIT file of another type than activity or monitoring is
    /// refused with ``FITDriverError/content(_:)``.
    package static func session(file bytes: [UInt8], name: String) throws(FITDriverError) -> DriverDownload {
        let file: FITFile
        do {
            file = try FITDecoder.decode(bytes, name: name)
        } catch {
            throw .file(error)
        }
        if let damage = file.damage, !keepsWholeMessages(damage) { throw .file(damage) }
        let activity: FITActivityFile
        do {
            activity = try FITActivityFile(file)
        } catch {
            throw .content(error)
        }
        return DriverDownload(
            family: family, samples: activity.samples, events: activity.events, file: DecodedFile(file: file, activity: activity))
    }

    /// Whether a file with `damage` is still imported: only a cut one, whose whole messages are kept.
    package static func keepsWholeMessages(_ damage: FITError) -> Bool {
        if case .truncated = damage { return true }
        return false
    }
}

/// Why a FIT file's session failed: the file is damaged, or it holds no activity or monitoring.
package enum FITDriverError: DriverError {
    case file(FITError)
    case content(FITActivityFileError)

    package var description: String {
        switch self {
        case .file(let error): error.description
        case .content(let error): error.description
        }
    }
}

/// A decoded file and its activity content, as a file family's session returns it.
package struct DecodedFile: Sendable {
    package var file: FITFile
    package var activity: FITActivityFile
}
