import Drivers
import Foundation
import Transport

/// Why a Garmin watch's volume could not be reached.
package enum GarminDiskError: DriverError {
    /// The watch is plugged in, but none of its block devices is mounted as a Garmin volume.
    case notMounted(watch: String, blockDevices: [String], waited: Int)
    case mountTableUnreadable(reason: String)
    /// No Garmin device at the location any more, neither a USB disk nor an MTP watch.
    case notADisk(location: String)

    package var description: String {
        switch self {
        case .notMounted(let watch, let devices, let waited):
            let names = devices.isEmpty ? "it has no block device yet" : "none of " + devices.map { "/dev/\($0)" }.joined(separator: ", ")
            return "the Garmin watch \(watch) is a USB disk, but \(names) is mounted with a GARMIN/GarminDevice.xml"
                + (waited > 0 ? " after \(waited)s" : "") + ": mount it read-only (see docs/operating.md)"
        case .mountTableUnreadable(let reason): return "/proc/self/mountinfo cannot be read: \(reason)"
        case .notADisk(let location):
            return "no Garmin watch is plugged in on \(location) any more (neither a USB disk nor an MTP watch): was it unplugged?"
        }
    }
}

/// `/proc/self/mountinfo`, read again each time the kernel says the mounts changed: the file
/// signals a change as an exceptional condition to `poll(2)` (proc(5)), so a wait for a mount
/// sleeps until one happens, bounded by a limit.
package final class MountTable {
    private let descriptor: Int32

    package init(path: String = "/proc/self/mountinfo") throws(GarminDiskError) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .mountTableUnreadable(reason: String(cString: strerror(errno))) }
    }

    deinit { close(descriptor) }

    /// The whole table as it is now (reading it to its end re-arms the change signal).
    package func text() -> String {
        _ = lseek(descriptor, 0, SEEK_SET)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += buffer[..<count]
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The first non-nil `found(table)`, reading the table now and after each change, for at most
    /// `seconds`; nil when the limit passes first.
    package func first<T>(within seconds: Int, _ found: (String) -> T?) -> T? {
        let deadline = Date().addingTimeInterval(TimeInterval(seconds))
        while true {
            if let value = found(text()) { return value }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var watch = pollfd(fd: descriptor, events: Int16(POLLPRI | POLLERR), revents: 0)
            _ = poll(&watch, 1, Int32(min(left * 1000, 3_600_000).rounded(.up)))
        }
    }
}

extension GarminDisk {
    /// The Garmin watch at `location` (nil when the device there is not one) and its mounted
    /// volume, waiting up to `seconds` for the system to mount it (a watch just plugged in).
    package static func volume(
        at location: USBDeviceLocation?, waiting seconds: Int, sysfs: String = "/sys", table: MountTable
    ) throws(GarminDiskError) -> (disk: GarminDisk, root: URL)? {
        guard let disk = plugged(sysfs: sysfs).first(where: { location == nil || $0.location == location }) else { return nil }
        let found = table.first(within: seconds) { text -> (GarminDisk, URL)? in
            // The block devices appear after the USB device; look again each time.
            let now = plugged(sysfs: sysfs).first(where: { $0.location == disk.location }) ?? disk
            return now.volume(in: text).map { (now, $0) }
        }
        guard let found else {
            let now = plugged(sysfs: sysfs).first(where: { $0.location == disk.location }) ?? disk
            throw .notMounted(watch: disk.origin, blockDevices: now.blockDevices.map(\.name), waited: seconds)
        }
        return found
    }
}
