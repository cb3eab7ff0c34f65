import Foundation
import Model
import Pipeline
import Transport

/// Continuous Glucose Monitoring service 0x181F (Continuous Glucose Monitoring Service 1.0.2).
///
/// Start: reads the CGM Feature (whether values carry an E2E-CRC), the CGM Status (the sensor's
/// current time offset) and the Session Start Time, then subscribes to CGM Measurement and, for
/// indications, the Record Access Control Point. Download: the stored records newer than the
/// last one the store holds for this sensor session (all of them the first time), through the
/// RACP. Then the live measurements of the session.
///
/// Records become sensor readings at *session start (UTC, from the Session Start Time with its
/// zone and DST) + time offset*. The stream is the session (`cgm@2024-01-15T06:00:00Z`) and the
/// record index its time offset in minutes, so a reading is found again by its session and
/// offset (`cgm@2024-01-15T06:00:00Z:60`). Values that are not readings are counted, never
/// stored: the special SFLOAT values (`special-value-nan`, `-nres`, `-positive-infinity`,
/// `-negative-infinity`, `-reserved`), impossible values, records whose E2E-CRC does not match
/// (`crc-mismatch`, each named in the problems), and records that do not decode. The store's
/// cursor for the session moves only after a complete download without a bad record, so a
/// record lost to a CRC error is asked for again next time.
package final class ContinuousGlucoseDriver: BLEDeviceDriver {
    package static let family: DeviceFamily = "ble-cgms"
    package static let service = BLEService.continuousGlucoseMonitoring
    package static let capabilities: DeviceCapabilities = [.glucose, .storedHistory, .liveValues, .passiveDecode]
    package static let summary = "sensor readings: stored records through the Record Access Control Point, then live ones"

    private let measurement: GATTCharacteristic?
    private let feature: GATTCharacteristic?
    private let status: GATTCharacteristic?
    private let sessionStart: GATTCharacteristic?
    private let controlPoint: GATTCharacteristic?

    /// Where record counts go (the session's, from `start`).
    private var progress = DownloadProgress.silent
    private var e2eCRC: Bool?
    private var startTime: CGMSessionStartTime?
    private var currentStatus: (status: CGMStatus, hostTime: Date)?
    private var records: [CGMMeasurement] = []
    private var badRecords = 0
    /// Records that did not decode, with the time offset each carries.
    private var badRecordProblems: [(UInt16, BLEValueError)] = []
    private var downloadComplete = false
    private var events = EventCounter()
    private var problems: [BLEDriverError] = []
    private var notes: [String] = []

    package init(service: GATTService) {
        measurement = service.characteristic(.cgmMeasurement)
        feature = service.characteristic(.cgmFeature)
        status = service.characteristic(.cgmStatus)
        sessionStart = service.characteristic(.cgmSessionStartTime)
        controlPoint = service.characteristic(.recordAccessControlPoint)
    }

    package var handles: Set<UInt16> { Set([measurement?.valueHandle, controlPoint?.valueHandle].compactMap { $0 }) }

    /// The stream of the sensor session: `cgm@` and the session start in UTC.
    package static func stream(sessionStart: Date) -> RecordStream {
        RecordStream("cgm@" + CivilDate.wallClock(Int64(sessionStart.timeIntervalSince1970.rounded(.down))) + "Z")
    }

    package func start(on link: BLELink) throws(BLEDriverError) {
        progress = link.context.progress
        if let value = try readable(feature, .cgmFeature, link) {
            do {
                let decoded = try CGMFeature.decode(value.bytes)
                e2eCRC = decoded.supportsE2ECRC
                notes.append("CGM Feature: \(decoded.supportsE2ECRC ? "values carry an E2E-CRC" : "no E2E-CRC"); sample \(decoded.sample)")
            } catch {
                valueFailed(error)
            }
        }
        if let value = try readable(status, .cgmStatus, link) {
            do {
                currentStatus = (try CGMStatus.decode(value.bytes, e2eCRC: e2eCRC), value.hostTime)
            } catch {
                valueFailed(error)
            }
        }
        if let value = try readable(sessionStart, .cgmSessionStartTime, link) {
            do {
                startTime = try CGMSessionStartTime.decode(value.bytes, e2eCRC: e2eCRC)
            } catch {
                valueFailed(error)
            }
        }
        if let measurement { try link.subscribe(measurement, to: .notifications) }
        if let controlPoint, controlPoint.properties.contains(.indicate) { try link.subscribe(controlPoint, to: .indications) }
    }

    package func download(on link: BLELink) throws(BLEDriverError) {
        guard let controlPoint, controlPoint.properties.contains(.write), measurement != nil else { return }
        var cursor: Int64?
        if let start = startTime?.utcStart { cursor = link.cursor(family: Self.family, stream: Self.stream(sessionStart: start)) }
        let filter: RACPFilter = cursor.map { .timeOffsetAtLeast(UInt16(clamping: $0 + 1)) } ?? .all
        let outcome = try RACPDownload(service: Self.service, controlPoint: controlPoint, link: link)
            .run(filter, incremental: cursor != nil)
        downloadComplete = outcome.completed
        if let problem = outcome.problem { problems.append(problem) }
    }

    package func take(_ notification: GATTNotification) {
        if notification.handle == controlPoint?.valueHandle {
            // Only seen when listening to another program's download.
            switch Result(catching: { () throws(BLEValueError) in try RACPResponse.decode(notification.value) }) {
            case .success(let response): notes.append("Record Access Control Point answer in the capture: \(response.summary)")
            case .failure(let error): valueFailed(error)
            }
            return
        }
        for (timeOffset, result) in CGMMeasurement.located(in: notification.value, e2eCRC: e2eCRC) {
            progress.advance("\(Self.service.name) records")
            switch result {
            case .success(let record):
                records.append(record)
            case .failure(let error):
                badRecords += 1
                guard let timeOffset else {
                    valueFailed(error)
                    continue
                }
                // Named in the report, where the session start that places it is known.
                if case .crcMismatch = error { events.count("crc-mismatch") } else { events.count("malformed-cgm-value") }
                badRecordProblems.append((timeOffset, error))
            }
        }
    }

    package func report(identity: BLEDeviceIdentity) -> DriverDownload {
        var events = self.events
        var problems = self.problems
        var notes = self.notes
        let utcStart = startTime?.utcStart
        problems += badRecordProblems.map { offset, error in
            .cgmRecord(timeOffsetMinutes: offset, time: utcStart?.addingTimeInterval(Double(offset) * 60), error: error)
        }
        var readings: [DeviceGlucoseRecord] = []
        var seenOffsets: Set<UInt16> = []
        if !records.isEmpty, utcStart == nil {
            problems.append(
                .noSessionStartTime(
                    reason: sessionStart == nil
                        ? "the sensor has no Session Start Time characteristic"
                        : startTime.map { "its Session Start Time \($0.localTime) has an unknown date, zone or DST" }
                            ?? "its Session Start Time could not be read"))
        }
        if let start = startTime, let utc = utcStart {
            let minutes = Int(start.timeZoneQuarterHours ?? 0) * 15
            let zone = (minutes < 0 ? "-" : "+") + "\(abs(minutes) / 60):" + (abs(minutes) % 60 < 10 ? "0" : "") + "\(abs(minutes) % 60)"
            notes.append(
                "CGM readings placed at the session start \(CivilDate.wallClock(Int64(utc.timeIntervalSince1970)))Z "
                    + "(Session Start Time \(start.localTime) at UTC\(zone), DST +\((start.dstOffset.seconds ?? 0) / 60) min) "
                    + "plus each record's time offset")
        }
        let stream = utcStart.map(Self.stream(sessionStart:)) ?? "cgm"
        for record in records {
            guard seenOffsets.insert(record.timeOffsetMinutes).inserted else {
                events.count("repeated-time-offset")
                continue
            }
            guard utcStart != nil else {
                events.count("no-session-start-time")
                continue
            }
            guard let value = record.glucose.value else {
                events.count("special-value-" + Self.specialName(record.glucose))
                continue
            }
            guard value > 0, value < 1000 else {
                events.count("impossible-value")
                continue
            }
            readings.append(
                DeviceGlucoseRecord(
                    stream: stream, index: Int64(record.timeOffsetMinutes), deviceSeconds: Int64(record.timeOffsetMinutes) * 60,
                    displaySeconds: nil, value: value, kind: .sensor))
        }
        var cursors = RecordCursors()
        if downloadComplete, badRecords == 0, utcStart != nil, let last = records.map(\.timeOffsetMinutes).max() {
            cursors.raise(stream, to: Int64(last))
        }
        if badRecords > 0 { notes.append("the session's download position was kept, so the records left out are asked for again") }
        let clock = DeviceClock(
            epoch: utcStart ?? Date(timeIntervalSince1970: 0), basis: .universal,
            deviceNow: currentStatus.map { Int64($0.status.timeOffsetMinutes) * 60 }, hostNow: currentStatus?.hostTime,
            resolution: 60, epochName: utcStart == nil ? nil : "Session Start Time")
        let download = GlucoseDownload(
            source: identity.source(family: Self.family), clock: clock, glucose: readings, recordsRead: records.count + badRecords,
            events: events.events,
            cursors: cursors, notes: notes)
        return DriverDownload(family: Self.family, service: Self.service, glucose: download, problems: problems)
    }

    /// `nan`, `nres`, `positive-infinity`, `negative-infinity`, `reserved`.
    static func specialName(_ value: MedicalFloat) -> String {
        switch value {
        case .notANumber: "nan"
        case .notAtThisResolution: "nres"
        case .positiveInfinity: "positive-infinity"
        case .negativeInfinity: "negative-infinity"
        case .reserved, .finite: "reserved"
        }
    }

    private func readable(_ characteristic: GATTCharacteristic?, _ known: BLECharacteristic, _ link: BLELink) throws(BLEDriverError)
        -> GATTValue?
    {
        guard let characteristic, characteristic.properties.contains(.read) else { return nil }
        return try link.readOptional(characteristic, name: known.name)
    }

    private func valueFailed(_ error: BLEValueError) {
        if case .crcMismatch = error { events.count("crc-mismatch") } else { events.count("malformed-cgm-value") }
        problems.append(.value(error))
    }
}
