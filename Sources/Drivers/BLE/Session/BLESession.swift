import Foundation
import Model
import Transport

/// How long a session waits, and how much it asks for.
public struct BLESessionLimits: Sendable, Equatable {
    /// The ATT MTU asked for. 65 bytes carry several CGM records in one notification (the
    /// longest values glucobridge reads); the device may grant less.
    package var preferredMTU: Int
    /// Listening ends when no notification arrives for this long.
    package var idleTimeout: Duration
    /// Listening ends this long after it began, by the host times of the values received; nil:
    /// only the device (or the end of a capture) ends it.
    package var maximumListen: Duration?
    /// How long a control-point request (RACP) waits for each answer.
    package var answerTimeout: Duration

    package init(preferredMTU: Int = 65, idleTimeout: Duration, maximumListen: Duration?, answerTimeout: Duration = .seconds(30)) {
        self.preferredMTU = preferredMTU
        self.idleTimeout = idleTimeout
        self.maximumListen = maximumListen
        self.answerTimeout = answerTimeout
    }

    /// A live session: listening stops after a minute without data, or after `minutes`.
    public static func live(minutes: Int = 60) -> BLESessionLimits {
        BLESessionLimits(idleTimeout: .seconds(60), maximumListen: .seconds(minutes * 60))
    }

    /// A replay: the capture decides when the session ends.
    package static let replay = BLESessionLimits(idleTimeout: .seconds(60), maximumListen: nil)
}

/// What a session read.
package struct BLESessionResult: Sendable {
    package var identity: BLEDeviceIdentity
    package var mode: BLESessionMode
    /// The attribute table discovery found.
    package var database: GATTDatabase
    /// One report per driver started, in registry order.
    package var reports: [DriverDownload]
    /// Notifications and indications on handles no driver reads, counted per handle.
    package var unclaimed: [UInt16: Int]
    /// How listening ended (the device disconnected, the capture ended, quiet, time limit).
    package var ending: String
    /// Remarks on the session as a whole.
    package var notes: [String]
    /// The host times of the first and last values received (reads and notifications).
    package var firstHostTime: Date?
    package var lastHostTime: Date?
}

/// One session with a Bluetooth LE device: MTU exchange, discovery, identity, then every driver
/// the device's services call for — started, then their stored records downloaded, then the
/// notifications of the session taken until the device leaves, goes quiet, or the time limit.
package enum BLESession {
    /// Runs the session on `client` and closes it. The context gives the highest record index
    /// the store holds for a source's stream, and takes the drivers' progress; `willListen` is called once the drivers only listen
    /// (a replay lets the capture run on from there).
    package static func run(
        _ client: any GATTClient, mode: BLESessionMode, limits: BLESessionLimits,
        context: DownloadContext, willListen: () -> Void = {}
    ) throws(BLEDriverError) -> BLESessionResult {
        defer { client.disconnect() }
        let link = BLELink(
            client: client, mode: mode, answerTimeout: limits.answerTimeout, identity: BLEDeviceIdentity(peer: client.peer),
            context: context)
        do {
            let mtu = try client.exchangeMTU(preferred: limits.preferredMTU)
            if mtu < limits.preferredMTU { link.note("the device keeps the ATT MTU at \(mtu) bytes") }
        } catch {
            guard link.isDispensable(error) else { throw .link(error) }
            link.note("ATT MTU not exchanged (\(error)); values are read 20 bytes at a time")
        }
        let database: GATTDatabase
        do {
            database = try client.discoverAll()
        } catch {
            throw .link(error)
        }
        link.identity = try DeviceInformation.identify(client.peer, database: database, link: link)
        let drivers = DriverRegistry.bleDrivers(for: database)
        guard !drivers.isEmpty else { throw .noSupportedService(found: database.services.map(\.uuid)) }
        link.database = database
        link.families = drivers.map { type(of: $0).family }
        for driver in drivers { link.own(driver) }

        var ending: String?
        do {
            for driver in drivers { try driver.start(on: link) }
            if mode == .conversation {
                for driver in drivers { try driver.download(on: link) }
            }
        } catch .link(.disconnected(let why)) {
            ending = why
        }
        if ending == nil {
            willListen()
            ending = try listen(link, limits)
        }
        return BLESessionResult(
            identity: link.identity, mode: mode, database: database, reports: drivers.map { $0.report(identity: link.identity) },
            unclaimed: link.unclaimed, ending: ending ?? "", notes: link.notes, firstHostTime: link.firstHostTime,
            lastHostTime: link.lastHostTime)
    }

    /// Takes notifications until the link ends, nothing arrives for the idle timeout, or the
    /// listening time is up; returns how it ended.
    private static func listen(_ link: BLELink, _ limits: BLESessionLimits) throws(BLEDriverError) -> String {
        var started: Date?
        do {
            while true {
                guard let notification = try link.client.nextNotification(timeout: limits.idleTimeout) else {
                    return "no notification for \(limits.idleTimeout.components.seconds) s"
                }
                link.dispatch(notification)
                let start = started ?? notification.hostTime
                started = start
                if let maximum = limits.maximumListen,
                    notification.hostTime.timeIntervalSince(start) >= TimeInterval(maximum.components.seconds)
                {
                    return "listened for \(maximum.components.seconds / 60) min, the limit"
                }
            }
        } catch {
            switch error {
            case .disconnected(let why):
                return why
            case .malformedPDU, .unexpectedPDU:
                link.note("listening stopped: \(error)")
                return "the device sent a PDU glucobridge cannot read"
            default:
                throw .link(error)
            }
        }
    }
}
