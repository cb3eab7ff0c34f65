import Drivers
import Foundation
import Ingest
import Model
import Store
import Transport

/// What one FIT file held besides what the store keeps: its type, messages and the watch's zone.
package struct FITFileImport: Sendable {
    /// The profile's name of the file type (`activity`, `monitoring_b`).
    package var fileType: String
    package var messagesRead: Int
    /// Files chained in it.
    package var parts: Int
    /// The watch's offset from UTC in seconds (`local_timestamp − timestamp`), when the file says.
    package var zoneOffset: Int64?
}

/// Why the files of a folder or a watch were not imported, before any was decoded (a file's own
/// damage is its family's error: ``FITError``, ``FITActivityFileError``).
public enum FITImportError: Error, CustomStringConvertible, Sendable {
    case unreadable(path: String, reason: String)
    case noFITFiles(folder: String)
    case nothingToImport(folder: String, skipped: [String])

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path) cannot be read: \(reason)"
        case .noFITFiles(let folder): "\(folder) holds no FIT file (none has \".FIT\" at bytes 8–11)"
        case .nothingToImport(let folder, let skipped):
            "\(folder) holds no FIT activity or monitoring file: " + skipped.joined(separator: "; ")
        }
    }
}

extension Importer {
    /// True when the file at `url` is a FIT file by its content (`.FIT` at bytes 8–11), whatever its name.
    package static func isFIT(_ url: URL) -> Bool {
        fileDriver(url) == FITDriver.family
    }

    /// The family of the file driver whose signature the file at `url` shows, by its content.
    static func fileDriver(_ url: URL) -> DeviceFamily? {
        FileBytes.prefix(ofPath: url.path, count: DriverRegistry.fileHeadLength).flatMap { DriverRegistry.fileDriver(head: $0)?.family }
    }

    /// True when `url` names a folder.
    package static func isFolder(_ url: URL) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &folder) && folder.boolValue
    }

    /// The FIT files directly in `folder` (told by content), by name.
    static func fitFiles(in folder: URL) throws(ImportError) -> [URL] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw .files(.unreadable(path: folder.path, reason: error.localizedDescription))
        }
        let files = names.sorted().map { folder.appendingPathComponent($0) }.filter { !isFolder($0) && isFIT($0) }
        guard !files.isEmpty else { throw .files(.noFITFiles(folder: folder.path)) }
        return files
    }

    /// Imports FIT files, each its own record source (see ``FITActivityFile/source``): every file
    /// is read, decoded and checked before anything is written, then each is written in one
    /// store transaction as an activity import. A damaged file (a wrong CRC, a damaged header, an
    /// unreadable record) refuses the whole import, naming it; a cut file keeps its whole
    /// messages and says what was cut. With `skippingOthers` (a folder), FIT files of other
    /// types (settings, sports, …) are named in a note instead of refused. `name` gives the name
    /// a file goes by in reports and the store (its path, unless the file is a copy).
    package func importFIT(
        _ files: [URL], origin: String, skippingOthers: Bool, context: ImportContext, name: (URL) -> String = { $0.path }
    ) throws(ImportError) -> [DeviceImport] {
        let startedAt = Date()
        var reads: [(url: URL, file: FITFile, activity: FITActivityFile, window: PlausibleWindow)] = []
        var skipped: [String] = []
        for url in files {
            try Self.checkCancelled(context)
            let fileName = url.lastPathComponent
            let bytes: [UInt8]
            switch FileBytes.contents(ofPath: url.path) {
            case .success(let read): bytes = read
            case .failure(let failure): throw .files(.unreadable(path: name(url), reason: failure.reason))
            }
            do throws(FITDriverError) {
                let download = try FITDriver.session(file: bytes, name: fileName)
                if let decoded = download.file { reads.append((url, decoded.file, decoded.activity, Self.window(of: url))) }
            } catch {
                switch error {
                case .content(let content):
                    guard skippingOthers, case .unsupportedType = content else { throw .driver(content) }
                    skipped.append(content.description)
                case .file(let damage):
                    throw .driver(damage)
                }
            }
        }
        guard !reads.isEmpty else { throw .files(.nothingToImport(folder: origin, skipped: skipped)) }
        try Self.checkCancelled(context)
        let profile: UserProfile
        do {
            profile = try store.userProfile()
        } catch {
            throw .store(error)
        }
        var outcomes: [DeviceImport] = []
        for (index, read) in reads.enumerated() {
            let batch = Self.batch(
                read.activity, damage: read.file.damage, origin: name(read.url), startedAt: startedAt, window: read.window, profile: profile)
            let summary: ActivityImportSummary
            do {
                summary = try store.save(batch)
            } catch {
                throw .store(error)
            }
            logger.info(
                "FIT file stored",
                metadata: [
                    "file": "\(name(read.url))", "source": "\(batch.source)", "minutesAdded": "\(summary.minutesAdded)",
                    "sessionsAdded": "\(summary.sessionsAdded)",
                ])
            var outcome = DeviceImport(
                mode: .replayPassive, replayMode: nil, origin: name(read.url), captureFormat: nil, identity: nil, session: nil, glucose: [],
                activity: ActivityImport(source: batch.source, summary: summary, sessions: batch.sessions, events: batch.events, notes: batch.notes),
                meterExercise: nil, problems: [], notes: index == 0 ? skipped.map { "skipped \($0)" } : [])
            outcome.fit = FITFileImport(
                fileType: FITProfile.FileType.name(read.activity.fileType), messagesRead: read.activity.messagesRead,
                parts: read.file.parts.count, zoneOffset: read.activity.zoneOffset?.seconds)
            outcomes.append(outcome)
        }
        return outcomes
    }

    /// A file's own time is when it was last written (not after now).
    static func window(of url: URL) -> PlausibleWindow {
        let written = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate]) as? Date
        return PlausibleWindow(captureTime: min(written ?? Date(), Date()))
    }

    /// The store's batch for one file: its samples as minutes (``ActivityResampler``), and its
    /// sessions as Exercise logs graded by ``IntensityClassifier`` over their minutes.
    static func batch(
        _ fit: FITActivityFile, damage: FITError?, origin: String, startedAt: Date, window: PlausibleWindow, profile: UserProfile
    ) -> ActivityBatch {
        let plausible = window.filter(fit.samples)
        let resampled = ActivityResampler.minutes(from: plausible.samples)
        let classifier = IntensityClassifier(profile: profile)
        var notes: [String] = []
        if let damage { notes.append(damage.description) }
        let logged = fit.sessions.map { session in
            LoggedWorkout(
                start: session.start, elapsed: session.elapsed, kind: session.kind, distance: session.distance,
                energy: session.calories.map { $0 * LoggedWorkout.kilojoulesPerKilocalorie }, averageHeartRate: session.averageHeartRate,
                recordKey: "session:\(session.index)")
        }
        let (sessions, ungraded) = LoggedWorkoutGrading.sessions(logged, minutes: resampled.minutes, classifier: classifier)
        if let note = LoggedWorkoutGrading.ungradedNote(ungraded, what: "session") { notes.append(note) }
        if classifier.profile.heartRateMethod == nil, resampled.minutes.contains(where: { $0.heartRate != nil }) {
            notes.append("heart rate was not used for intensity: the profile has no age or maximum heart rate")
        }
        if let zone = fit.zoneOffset {
            notes.append("the watch's clock was UTC\(Self.zone(zone.seconds)) at \(PlausibleWindow.utc(zone.at)) (local_timestamp)")
        }
        let deviceTime = fit.zoneOffset.map { $0.at.addingTimeInterval(TimeInterval($0.seconds)) }
        let batch = ActivityBatch(
            source: fit.source, startedAt: startedAt, mode: .replayPassive, origin: origin,
            clock: ClockReport(hostTime: nil, deviceTime: deviceTime, method: .deviceClockAsUTC), minutes: resampled.minutes,
            sessions: sessions, samplesRead: fit.samples.count,
            events: fit.events + [plausible.event].compactMap { $0 } + resampled.events,
            notes: notes + [plausible.note].compactMap { $0 })
        return window.filter(batch)
    }

    /// `+02:00`, `−06:00`, `+05:45`.
    static func zone(_ seconds: Int64) -> String {
        let minutes = seconds.magnitude / 60
        func two(_ value: UInt64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return (seconds < 0 ? "−" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
    }
}
