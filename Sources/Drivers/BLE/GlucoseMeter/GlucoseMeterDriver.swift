import Foundation
import Model
import Pipeline
import Transport

/// Glucose service 0x1808, as blood-glucose meters offer it (Glucose Service 1.0).
///
/// Start: subscribes to Glucose Measurement and Glucose Measurement Context (notifications) and
/// to the Record Access Control Point (indications). Download: the stored records with a sequence
/// number after the last one the store holds for this meter (all of them the first time).
///
/// Each measurement, linked with the context of the same sequence number, becomes a strip
/// (fingerstick) reading with the key `meter:<sequence number>`, timed by the meter's wall clock
/// (base time + time offset, no zone: it is read in the store's zone). The meter's sensor status
/// "result above / below device range" becomes the HI / LO flag. Counted, not stored:
/// control-solution tests (`control-solution`), the special SFLOAT values (`special-value-…`),
/// measurements without a concentration (`no-concentration`) or a usable time (`no-time`),
/// impossible values, and values that do not decode. A context's exercise (duration and
/// intensity) becomes a `DeviceExercise` keyed `meter-exercise:<sequence number>`.
///
/// A download cut before the RACP's response code (the link lost in the middle of the transfer)
/// keeps the whole records that arrived; a measurement whose context it announced (flag "context
/// follows") but which never came is half a record: it is left out (`context-not-received`)
/// and, since the store's position does not move, read whole by the next download.
package final class GlucoseMeterDriver: BLEDeviceDriver {
    package static let family: DeviceFamily = "ble-glucose"
    package static let service = BLEService.glucose
    package static let capabilities: DeviceCapabilities = [.glucose, .exercise, .storedHistory, .passiveDecode]
    package static let summary = "meter (strip) readings through the Record Access Control Point; a reading's exercise context as an Exercise log"
    package static let stream: RecordStream = "meter"

    private let measurement: GATTCharacteristic?
    private let context: GATTCharacteristic?
    private let controlPoint: GATTCharacteristic?
    /// Where record counts go (the session's, from `start`).
    private var progress = DownloadProgress.silent
    private var measurements: [GlucoseMeasurement] = []
    private var contexts: [GlucoseMeasurementContext] = []
    private var badValues = 0
    private var downloadComplete = false
    private var downloadCut = false
    private var events = EventCounter()
    private var problems: [BLEDriverError] = []
    private var notes: [String] = []

    package init(service: GATTService) {
        measurement = service.characteristic(.glucoseMeasurement)
        context = service.characteristic(.glucoseMeasurementContext)
        controlPoint = service.characteristic(.recordAccessControlPoint)
    }

    package var handles: Set<UInt16> {
        Set([measurement?.valueHandle, context?.valueHandle, controlPoint?.valueHandle].compactMap { $0 })
    }

    package func start(on link: BLELink) throws(BLEDriverError) {
        progress = link.context.progress
        for characteristic in [measurement, context].compactMap({ $0 }) where characteristic.properties.contains(.notify) {
            try link.subscribe(characteristic, to: .notifications)
        }
        if let controlPoint, controlPoint.properties.contains(.indicate) { try link.subscribe(controlPoint, to: .indications) }
    }

    package func download(on link: BLELink) throws(BLEDriverError) {
        guard let controlPoint, controlPoint.properties.contains(.write), measurement != nil else { return }
        let cursor = link.cursor(family: Self.family, stream: Self.stream)
        let filter: RACPFilter = cursor.map { .sequenceNumberAtLeast(UInt16(clamping: $0 + 1)) } ?? .all
        let outcome = try RACPDownload(service: Self.service, controlPoint: controlPoint, link: link)
            .run(filter, incremental: cursor != nil)
        downloadComplete = outcome.completed
        if let problem = outcome.problem {
            problems.append(problem)
            if case .racpIncomplete = problem { downloadCut = true }
        }
    }

    package func take(_ notification: GATTNotification) {
        do throws(BLEValueError) {
            switch notification.handle {
            case measurement?.valueHandle:
                measurements.append(try GlucoseMeasurement.decode(notification.value))
                progress.advance("\(Self.service.name) records")
            case context?.valueHandle:
                contexts.append(try GlucoseMeasurementContext.decode(notification.value))
            default:
                notes.append("Record Access Control Point answer in the capture: \(try RACPResponse.decode(notification.value).summary)")
            }
        } catch {
            badValues += 1
            events.count(error.characteristic == .glucoseMeasurementContext ? "malformed-context" : "malformed-measurement")
            problems.append(.value(error))
        }
    }

    package func report(identity: BLEDeviceIdentity) -> DriverDownload {
        var events = self.events
        var notes = self.notes
        let (records, unmatched) = GlucoseRecord.link(measurements: measurements, contexts: contexts)
        if !unmatched.isEmpty {
            notes.append("\(unmatched.count) measurement context\(unmatched.count == 1 ? "" : "s") without a measurement were left out")
        }
        var readings: [DeviceGlucoseRecord] = []
        var exercise: [DeviceExercise] = []
        for record in records {
            let measurement = record.measurement
            if downloadCut, measurement.contextFollows, record.context == nil {
                events.count("context-not-received")
                continue
            }
            let sequence = measurement.sequenceNumber
            let time = measurement.wallClockSeconds
            if let activity = record.context?.exercise, let time {
                if let seconds = activity.duration, seconds > 0 {
                    exercise.append(
                        DeviceExercise(
                            deviceSeconds: time, durationSeconds: seconds, intensityPercent: Int(activity.intensityPercent),
                            recordKey: "meter-exercise:\(sequence)"))
                } else {
                    events.count(activity.duration == nil ? "exercise-duration-overrun" : "exercise-without-duration")
                }
            }
            guard let concentration = measurement.concentration else {
                events.count("no-concentration")
                continue
            }
            if measurement.sample?.isControlSolution == true {
                events.count("control-solution")
                continue
            }
            guard let (value, unit) = concentration.displayed else {
                events.count("special-value-" + ContinuousGlucoseDriver.specialName(concentration.value))
                continue
            }
            guard let time else {
                events.count("no-time")
                continue
            }
            let mgdl = unit.milligramsPerDeciliter(value)
            guard mgdl > 0, mgdl < 1000 else {
                events.count("impossible-value")
                continue
            }
            let status = measurement.sensorStatus ?? []
            let flag: RangeFlag? =
                status.contains(.resultAboveDeviceRange)
                ? .aboveRange : status.contains(.resultBelowDeviceRange) ? .belowRange : nil
            readings.append(
                DeviceGlucoseRecord(
                    stream: Self.stream, index: Int64(sequence), deviceSeconds: time, displaySeconds: time, value: value, unit: unit,
                    kind: .fingerstick, flag: flag))
        }
        var cursors = RecordCursors()
        if downloadComplete, badValues == 0, let last = measurements.map(\.sequenceNumber).max() {
            cursors.raise(Self.stream, to: Int64(last))
        }
        if !readings.isEmpty { notes.append("meter times are its own wall clock (base time + offset), read in the store's time zone") }
        let download = GlucoseDownload(
            source: identity.source(family: Self.family), clock: DeviceClock(epoch: Date(timeIntervalSince1970: 0), basis: .localWallClock),
            glucose: readings, recordsRead: measurements.count + badValues, events: events.events, cursors: cursors, notes: notes)
        return DriverDownload(family: Self.family, service: Self.service, glucose: download, exercise: exercise, problems: problems)
    }
}
