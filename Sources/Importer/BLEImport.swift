import CaptureBluetooth
import Drivers
import Foundation
import Ingest
import Logging
import Model
import Pipeline
import Store
import Transport
import TransportReplay

extension Importer {
    /// Replays every LE connection of a btsnoop capture that carries ATT, each as its own device
    /// with its own GATT discovery (attribute handles are per connection), in the order they
    /// opened. Conversation replay is tried first: the drivers hold their normal session and the
    /// capture answers each request. When the capture was made by another program whose requests
    /// differ, it is replayed passively (the drivers read only what the capture answers and take
    /// the notifications it holds), and the outcome says why. Every connection is read before
    /// anything is written; each device's import is then written as it would be alone.
    func replayBluetoothCapture(at url: URL, context: ImportContext) throws(ImportError) -> [DeviceImport] {
        let deadline = context.budget.map { ReplayDeadline(budget: $0) }
        let capture = try Self.readLECapture(url)
        guard !capture.attConnections.isEmpty else {
            do {
                _ = try ReplayATTBearer(capture: capture)
            } catch {
                throw .session(.link(error))
            }
            return []
        }
        let startedAt = Date()
        let downloadContext = try downloadContext(context)
        var sessions: [(BLESessionResult, ReplayMode)] = []
        for connection in capture.attConnections {
            sessions.append(try replayConnection(connection, in: capture, deadline: deadline, context: downloadContext))
        }
        try Self.check(deadline)
        try Self.checkCancelled(context)
        let window = Self.window(of: capture)
        var outcomes: [DeviceImport] = []
        for (result, replayMode) in sessions {
            outcomes.append(try write(result, replayMode: replayMode, origin: url.path, startedAt: startedAt, window: window))
        }
        return outcomes
    }

    /// Fails when the import's time is up, before anything is written.
    private static func check(_ deadline: ReplayDeadline?) throws(ImportError) {
        if let deadline, deadline.hasPassed { throw .session(.link(.deadlinePassed(deadline.budget))) }
    }

    private static func readLECapture(_ url: URL) throws(ImportError) -> LECapture {
        do {
            return try LECapture.read(contentsOf: url)
        } catch {
            throw .btsnoop(error)
        }
    }

    /// The capture's own time: its last plausible record timestamp.
    private static func window(of capture: LECapture) -> PlausibleWindow {
        PlausibleWindow.forCapture(timestamps: capture.file.packets.map { $0.hostTime })
    }

    /// Replays one connection: conversation first, passively when the capture does not hold what
    /// the drivers ask.
    private func replayConnection(
        _ connection: LEConnection, in capture: LECapture, deadline: ReplayDeadline?, context: DownloadContext
    ) throws(ImportError) -> (BLESessionResult, ReplayMode) {
        do {
            return (
                try replaySession(connection, in: capture, pacing: .waitForClient, mode: .conversation, deadline: deadline, context: context),
                .conversation
            )
        } catch let error where Self.bleReplayMismatch(error) != nil {
            let replayMode = ReplayMode.passive(reason: Self.bleReplayMismatch(error)!)
            logger.debug("conversation replay not possible, listening passively", metadata: ["reason": "\(replayMode)"])
            return (
                try replaySession(connection, in: capture, pacing: .followDevice, mode: .listenOnly, deadline: deadline, context: context),
                replayMode
            )
        }
    }

    private func write(
        _ result: BLESessionResult, replayMode: ReplayMode, origin: String, startedAt: Date, window: PlausibleWindow
    ) throws(ImportError) -> DeviceImport {
        var outcome = try write(
            result, mode: replayMode == .conversation ? .replayConversation : .replayPassive, origin: origin, startedAt: startedAt,
            window: window)
        outcome.replayMode = replayMode
        for index in outcome.glucose.indices { outcome.glucose[index].replayMode = replayMode }
        return outcome
    }

    /// Imports from an open ATT bearer (a live connection, or a simulated device), holding the
    /// conversation; with `context.recordTo` the session is also written there as a btsnoop
    /// file, the PDUs sent stamped by `context.recordingClock`.
    func importBluetooth(_ connected: ConnectedPeer, context: ImportContext) throws(ImportError) -> DeviceImport {
        let startedAt = Date()
        var used = connected.bearer
        if let cancellation = context.cancellation { used = CancellableATTBearer(used, cancellation: cancellation) }
        var recorder: RecordingATTBearer?
        if let recordURL = context.recordTo {
            do {
                let recording = try RecordingATTBearer(recording: used, to: recordURL, clock: context.recordingClock)
                recorder = recording
                used = recording
            } catch {
                used.close()
                throw .session(.link(error))
            }
        }
        let result: BLESessionResult
        let downloadContext: DownloadContext
        do throws(ImportError) {
            downloadContext = try self.downloadContext(context)
        } catch {
            used.close()
            throw error
        }
        do {
            result = try BLESession.run(ATTClient(bearer: used), mode: .conversation, limits: context.limits, context: downloadContext)
        } catch {
            if let reason = context.cancellation?.reason { throw reason }
            throw .session(error)
        }
        try Self.checkCancelled(context)
        var outcome = try write(
            result, mode: .live, origin: connected.origin, startedAt: startedAt, window: PlausibleWindow(captureTime: Date()))
        if let failure = recorder?.recordingError { outcome.notes.append("the recording is incomplete: \(failure)") }
        return outcome
    }

    private func replaySession(
        _ connection: LEConnection, in capture: LECapture, pacing: ReplayATTBearer.Pacing, mode: BLESessionMode,
        deadline: ReplayDeadline?, context: DownloadContext
    ) throws(ImportError) -> BLESessionResult {
        let bearer = ReplayATTBearer(
            connection: connection, file: capture.name, name: capture.localName(of: connection.peerAddress), pacing: pacing,
            deadline: deadline)
        do {
            return try BLESession.run(
                ATTClient(bearer: bearer), mode: mode, limits: .replay, context: context,
                willListen: { bearer.pacing = .followDevice })
        } catch {
            throw .session(error)
        }
    }

    /// Why a conversation replay could not go on, when the cause is that the capture does not
    /// hold what the drivers asked (as opposed to a fault recorded in the capture).
    static func bleReplayMismatch(_ error: ImportError) -> String? {
        if case .session(.huami(.authKeyMissing(let band, _))) = error {
            return "no auth key is known for the Huami band \(band), so its session cannot be held again"
        }
        guard case .session(.link(let link)) = error else { return nil }
        switch link {
        case .requestNotInCapture(_, let pdu, let record):
            let shown = Hex.encode(Array(pdu.prefix(16))) + (pdu.count > 16 ? " …" : "")
            return "the capture does not hold the request \(shown) (searched after record \(record))"
        case .timeout:
            return "a request glucobridge sends is never answered in the capture"
        default:
            return nil
        }
    }

    /// Writes what the session read: the activity of every activity service as one source (the
    /// device's, under the bus's family `ble`, its services listed), each glucose service's readings under its own
    /// family, and a meter's own exercise notes — all in one store transaction. Everything was
    /// read, normalised and checked before anything is written.
    private func write(
        _ result: BLESessionResult, mode: ImportMode, origin: String?, startedAt: Date, window: PlausibleWindow
    ) throws(ImportError) -> DeviceImport {
        var outcome = DeviceImport(
            mode: mode, replayMode: nil, origin: origin, captureFormat: nil, identity: result.identity, session: result, glucose: [],
            activity: nil, meterExercise: nil, problems: result.reports.flatMap(\.problems), notes: result.notes)
        let zone = store.timeZone
        var glucose: [(BLEService?, ImportBatch)] = []
        var activity: [ActivityBatch] = []
        var hasActivity = false
        var meterExercise: ActivityBatch?

        let activityReports = result.reports.filter { $0.glucose == nil }
        let plausible = window.filter(activityReports.flatMap(\.samples))
        let workouts = activityReports.flatMap(\.workouts)
        if !plausible.samples.isEmpty || !workouts.isEmpty {
            let profile: UserProfile
            do {
                profile = try store.userProfile()
            } catch {
                throw .store(error)
            }
            var batch = ExerciseDetector(profile: profile).batch(
                from: plausible.samples, source: result.identity.source(family: DeviceFamily.bluetoothActivity), startedAt: startedAt, mode: mode,
                origin: origin,
                clock: activityReports.lazy.compactMap(\.clock).first
                    ?? ClockReport(hostTime: result.lastHostTime, deviceTime: nil, method: .hostAnchored))
            batch.events = activityReports.flatMap(\.events) + [plausible.event].compactMap { $0 } + batch.events
            batch.notes = activityReports.flatMap(\.notes) + [plausible.note].compactMap { $0 } + batch.notes
            batch.services = activityReports.map(\.family)
            batch.cursors = activityReports.reduce(RecordCursors()) { $0.merging($1.cursors) }
            if !workouts.isEmpty {
                // The device's own workouts, and the sessions detected outside them. A workout
                // whose minutes an earlier import stored is graded over those.
                var minutes = batch.minutes
                for workout in workouts {
                    let end = workout.start.addingTimeInterval(workout.elapsed)
                    guard !minutes.contains(where: { $0.start >= workout.start && $0.start < end }),
                        let first = ActivityMinute.number(of: workout.start)
                    else { continue }
                    do {
                        minutes += try store.activityMinutes(
                            source: batch.source, from: Date(timeIntervalSince1970: TimeInterval(first * 60)), to: end
                        ).map(\.minute)
                    } catch {
                        throw .store(error)
                    }
                }
                let (logged, ungraded) = LoggedWorkoutGrading.sessions(
                    workouts, minutes: minutes, classifier: IntensityClassifier(profile: profile))
                let detected = batch.sessions.filter { session in !logged.contains { LoggedWorkoutGrading.overlap($0, session) } }
                batch.sessions = (logged + detected).sorted { $0.start < $1.start }
                if let note = LoggedWorkoutGrading.ungradedNote(ungraded, what: "workout") { batch.notes.append(note) }
            }
            activity.append(window.filter(batch))
            hasActivity = true
        } else {
            outcome.notes += activityReports.flatMap(\.notes) + [plausible.note].compactMap { $0 }
            for report in activityReports {
                outcome.notes.append("\(report.serviceName): no measurements received")
            }
        }
        for report in result.reports {
            guard let download = report.glucose else { continue }
            if download.recordsRead > 0 || !download.cursors.isEmpty {
                do {
                    glucose.append(
                        (
                            report.service,
                            try Normaliser.batch(
                                timedByDevice: download, mode: mode, origin: origin, startedAt: startedAt, timeZone: zone, window: window)
                        ))
                } catch {
                    throw .implausibleClock(error)
                }
            } else {
                outcome.notes += download.notes
                outcome.notes.append("\(report.serviceName): no records received")
            }
            if !report.exercise.isEmpty {
                let batch = window.filter(
                    ActivityBatch(
                        source: download.source, startedAt: startedAt, mode: mode, origin: origin,
                        clock: ClockReport(hostTime: nil, deviceTime: nil, method: .deviceLocalTime), minutes: [],
                        sessions: Normaliser.exerciseSessions(report.exercise, clock: download.clock, timeZone: zone), samplesRead: 0))
                meterExercise = batch
                activity.append(batch)
            }
        }

        let summary: CombinedImportSummary
        do {
            summary = try store.save(glucose: glucose.map(\.1), activity: activity)
        } catch {
            throw .store(error)
        }
        for ((service, batch), stored) in zip(glucose, summary.glucose) {
            outcome.glucose.append(
                GlucoseImport(
                    summary: stored, source: batch.source, mode: mode, origin: origin, replayMode: nil, captureFormat: nil, clock: batch.clock,
                    events: batch.events, notes: batch.notes, service: service))
        }
        var activitySummaries = summary.activity[...]
        if hasActivity, let batch = activity.first, let stored = activitySummaries.popFirst() {
            outcome.activity = ActivityImport(
                source: batch.source, services: batch.services, summary: stored, sessions: batch.sessions, events: batch.events,
                notes: batch.notes)
        }
        if let batch = meterExercise, let stored = activitySummaries.popFirst() {
            outcome.meterExercise = ActivityImport(source: batch.source, summary: stored, sessions: batch.sessions, events: [], notes: [])
        }
        logger.info(
            "bluetooth import stored",
            metadata: [
                "device": "\(result.identity.peer)", "mode": "\(mode)",
                "activityMinutesAdded": "\(outcome.activity?.summary.minutesAdded ?? 0)",
                "readingsAdded": "\(outcome.glucose.reduce(0) { $0 + $1.summary.added })",
            ])
        return outcome
    }
}
