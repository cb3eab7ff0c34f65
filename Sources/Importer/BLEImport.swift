import Capture
import Drivers
import Foundation
import Ingest
import Logging
import Model
import Store
import Transport

/// Why a Bluetooth import did not happen. Nothing was written to the store in any of these cases.
public enum BLEImportError: Error, CustomStringConvertible {
    /// The btsnoop capture could not be read.
    case capture(BTSnoopError)
    /// The session with the device (live or replayed) failed.
    case session(BLEDriverError)
    case store(StoreError)

    public var description: String {
        switch self {
        case .capture(let error): error.description
        case .session(let error): error.description
        case .store(let error): error.description
        }
    }
}

/// The activity one Bluetooth import stored for one source.
public struct BLEActivityImport: Sendable {
    public var source: DeviceSource
    public var summary: ActivityImportSummary
    /// The sessions offered to the store (new or already stored), by start.
    public var sessions: [ExerciseSession]
    /// Samples or values left out, by reason.
    public var events: [ImportEvent]
    public var notes: [String]
}

/// The glucose readings one Bluetooth import stored for one service of the device.
public struct BLEGlucoseImport: Sendable {
    public var source: DeviceSource
    public var service: BLEService
    public var summary: ImportSummary
    /// Records read but not stored, by reason (special values, CRC failures, …).
    public var events: [ImportEvent]
    public var clock: ClockReport
    public var notes: [String]
}

/// What one Bluetooth import did.
public struct BLEImportOutcome: Sendable {
    public var identity: BLEDeviceIdentity
    /// `live`, `replay-conversation` or `replay-passive`.
    public var mode: String
    public var replayMode: ReplayMode?
    public var origin: String?
    /// The whole session as the drivers read it.
    public var session: BLESessionResult
    /// Activity samples of every activity service, as one source.
    public var activity: BLEActivityImport?
    public var glucose: [BLEGlucoseImport]
    /// Exercise a meter logged with its readings.
    public var meterExercise: BLEActivityImport?
    /// Named problems the drivers met (values left out, refused or incomplete downloads).
    public var problems: [BLEDriverError]
    public var notes: [String]

    /// Notifications on characteristics no driver reads: handle, the characteristic's UUID when
    /// discovery found one there, and how many arrived.
    public var unclaimed: [(handle: UInt16, uuid: BluetoothUUID?, count: Int)] {
        session.unclaimed.sorted { $0.key < $1.key }.map { handle, count in
            (handle, session.database.characteristic(valueHandle: handle)?.uuid, count)
        }
    }
}

extension Importer {
    /// True when the file at `url` starts with the btsnoop magic, whatever its name.
    public static func isBTSnoop(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 8)) ?? Data()
        return magic == Data("btsnoop\u{0}".utf8)
    }

    /// Replays a btsnoop capture of a Bluetooth LE session into the store: the first connection
    /// carrying ATT (to `address`, when given) is played to the drivers its services call for.
    ///
    /// Conversation replay is tried first: the drivers hold their normal session and the capture
    /// answers each request. When the capture was made by another program whose requests differ,
    /// the capture is replayed passively — the drivers read only what the capture answers and
    /// take the notifications and indications it holds — and the outcome says why.
    /// With a `budget`, a replay still running after that long stops at its next PDU, or before it
    /// writes, and stores nothing (`BLEError.deadlinePassed`).
    public func replayBLE(captureAt url: URL, address: BluetoothAddress? = nil, budget: Duration? = nil) throws(BLEImportError) -> BLEImportOutcome {
        let deadline = budget.map { ContinuousClock.now + $0 }
        let capture: LECapture
        do {
            capture = try LECapture.read(contentsOf: url)
        } catch {
            throw .capture(error)
        }
        let startedAt = Date()
        var replayMode = ReplayMode.conversation
        let result: BLESessionResult
        do {
            result = try replaySession(capture, address: address, pacing: .waitForClient, mode: .conversation, budget: budget)
        } catch let error where Self.bleReplayMismatch(error) != nil {
            replayMode = .passive(reason: Self.bleReplayMismatch(error)!)
            logger.debug("conversation replay not possible, listening passively", metadata: ["reason": "\(replayMode)"])
            result = try replaySession(capture, address: address, pacing: .followDevice, mode: .listenOnly, budget: budget)
        }
        if let deadline, let budget, ContinuousClock.now >= deadline { throw .session(.link(.deadlinePassed(budget))) }
        var outcome = try write(result, mode: replayMode == .conversation ? "replay-conversation" : "replay-passive", origin: url.path, startedAt: startedAt)
        outcome.replayMode = replayMode
        return outcome
    }

    /// Connects to `peer` over Bluetooth LE and imports what its services give, recording the
    /// session to `recordURL` as a btsnoop file when given. On a machine without Bluetooth this
    /// fails with one line saying so.
    public func importBLE(
        peer: BLEPeer, adapter: String? = nil, security: BLESecurity = .low, recordTo recordURL: URL? = nil,
        limits: BLESessionLimits = .live()
    ) throws(BLEImportError) -> BLEImportOutcome {
        let bearer: L2CAPATTBearer
        do {
            bearer = try L2CAPATTBearer.connect(to: peer, adapter: adapter, security: security)
        } catch {
            throw .session(.link(error))
        }
        logger.info("connected", metadata: ["peer": "\(peer)"])
        return try importBLESession(over: bearer, origin: "bluetooth \(peer.address)", recordTo: recordURL, limits: limits)
    }

    /// Imports from an open ATT bearer (a live connection, or a simulated device), holding the
    /// conversation; with `recordURL` the session is also written there as a btsnoop file, the
    /// PDUs sent stamped by `recordingClock`.
    public func importBLESession(
        over bearer: any ATTBearer, origin: String, recordTo recordURL: URL? = nil,
        recordingClock: @escaping () -> Date = Date.init, limits: BLESessionLimits = .live()
    ) throws(BLEImportError) -> BLEImportOutcome {
        let startedAt = Date()
        var used = bearer
        var recorder: RecordingATTBearer?
        if let recordURL {
            do {
                let recording = try RecordingATTBearer(recording: bearer, to: recordURL, clock: recordingClock)
                recorder = recording
                used = recording
            } catch {
                bearer.close()
                throw .session(.link(error))
            }
        }
        let result: BLESessionResult
        do {
            result = try BLESession.run(ATTClient(bearer: used), mode: .conversation, limits: limits, storedCursor: storedCursor)
        } catch {
            throw .session(error)
        }
        var outcome = try write(result, mode: "live", origin: origin, startedAt: startedAt)
        if let failure = recorder?.recordingError { outcome.notes.append("the recording is incomplete: \(failure)") }
        return outcome
    }

    private var storedCursor: (DeviceSource, String) throws -> Int64? {
        { [store] source, stream in try store.cursor(source: source, stream: stream) }
    }

    private func replaySession(
        _ capture: LECapture, address: BluetoothAddress?, pacing: ReplayATTBearer.Pacing, mode: BLESessionMode, budget: Duration?
    ) throws(BLEImportError) -> BLESessionResult {
        let bearer: ReplayATTBearer
        do {
            bearer = try ReplayATTBearer(capture: capture, address: address, pacing: pacing, budget: budget)
        } catch {
            throw .session(.link(error))
        }
        do {
            return try BLESession.run(
                ATTClient(bearer: bearer), mode: mode, limits: .replay, storedCursor: storedCursor,
                willListen: { bearer.pacing = .followDevice })
        } catch {
            throw .session(error)
        }
    }

    /// Why a conversation replay could not go on, when the cause is that the capture does not
    /// hold what the drivers asked (as opposed to a fault recorded in the capture).
    static func bleReplayMismatch(_ error: BLEImportError) -> String? {
        guard case .session(.link(let link)) = error else { return nil }
        switch link {
        case let .requestNotInCapture(_, pdu, record):
            let shown = Hex.encode(Array(pdu.prefix(16))) + (pdu.count > 16 ? " …" : "")
            return "the capture does not hold the request \(shown) (searched after record \(record))"
        case .timeout:
            return "a request glucobridge sends is never answered in the capture"
        default:
            return nil
        }
    }

    /// Writes what the session read: the activity of every activity service as one source (the
    /// device's, under the joined family names), each glucose service's readings under its own
    /// family, and a meter's own exercise notes. Everything was read before anything is written.
    private func write(_ result: BLESessionResult, mode: String, origin: String?, startedAt: Date) throws(BLEImportError)
        -> BLEImportOutcome
    {
        var outcome = BLEImportOutcome(
            identity: result.identity, mode: mode, replayMode: nil, origin: origin, session: result, activity: nil, glucose: [],
            meterExercise: nil, problems: result.reports.flatMap(\.problems), notes: result.notes)
        let zone = store.timeZone
        do {
            let activityReports = result.reports.filter { $0.glucose == nil }
            let samples = activityReports.flatMap(\.samples)
            if !samples.isEmpty {
                let family = activityReports.map(\.family).joined(separator: "+")
                let source = result.identity.source(family: family)
                var batch = ExerciseDetector(profile: try store.userProfile()).batch(
                    from: samples, source: source, startedAt: startedAt, mode: mode, origin: origin,
                    clock: ClockReport(hostTime: result.lastHostTime, deviceTime: nil, method: .hostAnchored))
                batch.events = activityReports.flatMap(\.events) + batch.events
                batch.notes = activityReports.flatMap(\.notes) + batch.notes
                let summary = try store.record(batch)
                outcome.activity = BLEActivityImport(
                    source: source, summary: summary, sessions: batch.sessions, events: batch.events, notes: batch.notes)
            } else {
                outcome.notes += activityReports.flatMap(\.notes)
                for report in activityReports {
                    outcome.notes.append("\(report.service.name): no measurements received")
                }
            }
            for report in result.reports {
                guard let download = report.glucose else { continue }
                if download.recordsRead > 0 || !download.cursors.isEmpty {
                    let batch = Normaliser.batch(timedByDevice: download, mode: mode, origin: origin, startedAt: startedAt, timeZone: zone)
                    let summary = try store.record(batch)
                    outcome.glucose.append(BLEGlucoseImport(
                        source: batch.source, service: report.service, summary: summary, events: batch.events, clock: batch.clock,
                        notes: batch.notes))
                } else {
                    outcome.notes += download.notes
                    outcome.notes.append("\(report.service.name): no records received")
                }
                if !report.exercise.isEmpty {
                    let sessions = Normaliser.exerciseSessions(report.exercise, clock: download.clock, timeZone: zone)
                    let batch = ActivityBatch(
                        source: download.source, startedAt: startedAt, mode: mode, origin: origin,
                        clock: ClockReport(hostTime: nil, deviceTime: nil, method: .deviceLocalTime), minutes: [],
                        sessions: sessions, samplesRead: 0)
                    let summary = try store.record(batch)
                    outcome.meterExercise = BLEActivityImport(
                        source: download.source, summary: summary, sessions: sessions, events: [], notes: [])
                }
            }
        } catch {
            throw .store(error)
        }
        logger.info("bluetooth import stored", metadata: [
            "device": "\(result.identity.peer)", "mode": "\(mode)",
            "activityMinutesAdded": "\(outcome.activity?.summary.minutesAdded ?? 0)",
            "readingsAdded": "\(outcome.glucose.reduce(0) { $0 + $1.summary.added })",
        ])
        return outcome
    }
}
