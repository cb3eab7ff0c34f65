import Foundation
import Model
import Transport

/// A PineTime running InfiniTime: the Motion service's step counter with the watch's Current
/// Time, and a read of its heart rate (decoded as the Heart Rate service's measurement; the
/// Heart Rate driver takes its notifications).
///
/// The watch keeps no history: each session is a read. Start reads the Current Time (the
/// watch's wall clock, kept as the device clock beside the host's), the step count and the heart
/// rate, and subscribes to the step count; each step notification is a read too, its watch clock
/// the host time moved by the watch's offset. The reads become steps per UTC minute through
/// ``InfiniTimeStepLedger`` from the last read stored (the `steps` and `steps-day` cursors):
/// deltas within a watch day, from 0 after the watch's midnight or a restart of the watch.
package final class InfiniTimeDriver: BLEDeviceDriver {
    package static let family: DeviceFamily = "infinitime"
    package static let service = BLEService.infiniTimeMotion
    package static let capabilities: DeviceCapabilities = [.activity, .liveValues, .passiveDecode]
    package static let summary =
        "PineTime (InfiniTime): steps from the Motion service's counter on the watch's clock, as deltas per minute "
        + "between reads (reset at the watch's midnight and on a restart), and heart rate"

    private let stepCount: GATTCharacteristic?
    private var heartRate: GATTCharacteristic?
    private var currentTime: GATTCharacteristic?
    /// Watch wall clock − host time, in seconds, from the Current Time read.
    private var watchOffset: Double?
    private var clock: ClockReport?
    private var stored: InfiniTimeStepCursor?
    private var reads: [InfiniTimeStepRead] = []
    private var samples: [ActivitySample] = []
    private var events = EventCounter()
    private var problems: [BLEDriverError] = []
    private var notes: [String] = []

    package init(service: GATTService) {
        stepCount = service.characteristic(InfiniTimeUUID.stepCount)
    }

    package var handles: Set<UInt16> { Set([stepCount?.valueHandle].compactMap { $0 }) }

    package func start(on link: BLELink) throws(BLEDriverError) {
        currentTime = link.database.characteristic(InfiniTimeUUID.currentTime)
        heartRate = link.database.characteristic(BLECharacteristic.heartRateMeasurement.uuid)
        let family = DeviceFamily.bluetoothActivity
        stored = InfiniTimeStepCursor(
            steps: link.cursor(family: family, stream: InfiniTimeStepCursor.stepsStream),
            day: link.cursor(family: family, stream: InfiniTimeStepCursor.dayStream))
        if let currentTime, currentTime.properties.contains(.read),
            let value = try link.readOptional(currentTime, name: BLECharacteristic.currentTime.name)
        {
            do {
                let decoded = try CurrentTime.decode(value.bytes)
                let watch = decoded.wallClockSeconds!
                watchOffset = watch - value.hostTime.timeIntervalSince1970
                clock = ClockReport(hostTime: value.hostTime, deviceTime: Date(timeIntervalSince1970: watch), method: .hostAnchored)
                notes.append("the watch's clock read \(decoded.dateTime)")
            } catch {
                problems.append(.value(error))
            }
        } else if currentTime == nil {
            notes.append("the watch has no Current Time characteristic: its steps cannot be placed in its day and were not stored")
        }
        guard let stepCount else {
            notes.append("the Motion service has no step count characteristic")
            return
        }
        if stepCount.properties.contains(.read), let value = try link.readOptional(stepCount, name: BLECharacteristic.infiniTimeStepCount.name) {
            step(value.bytes, at: value.hostTime)
        }
        if let heartRate, heartRate.properties.contains(.read),
            let value = try link.readOptional(heartRate, name: BLECharacteristic.heartRateMeasurement.name)
        {
            do {
                let decoded = try HeartRateMeasurement.decode(value.bytes)
                if decoded.beatsPerMinute > 0 {
                    samples.append(ActivitySample(time: value.hostTime, sensor: .heartRateBand, heartRate: Double(decoded.beatsPerMinute)))
                } else {
                    events.count("no-heart-rate")
                }
            } catch {
                events.count("malformed-heart-rate")
                problems.append(.value(error))
            }
        }
        if stepCount.properties.contains(.notify) { try link.subscribe(stepCount, to: .notifications) }
    }

    package func take(_ notification: GATTNotification) {
        step(notification.value, at: notification.hostTime)
    }

    private func step(_ value: [UInt8], at hostTime: Date) {
        do {
            let steps = try InfiniTimeStepCount.decode(value)
            guard let watchOffset else {
                events.count("steps-without-watch-time")
                return
            }
            reads.append(InfiniTimeStepRead(hostTime: hostTime, watchClock: hostTime.timeIntervalSince1970 + watchOffset, steps: steps))
        } catch {
            events.count("malformed-step-count")
            problems.append(.value(error))
        }
    }

    package func report(identity: BLEDeviceIdentity) -> DriverDownload {
        var ledger = InfiniTimeStepLedger(stored: stored)
        ledger.take(reads)
        var events = self.events
        for event in ledger.events.events { events.count(event.name, event.count) }
        let steps = ledger.minutes.map { minute in
            ActivitySample(time: Date(timeIntervalSince1970: TimeInterval(minute.minute * 60)), sensor: .watch, cadence: Double(minute.steps))
        }
        var notes = self.notes + ledger.notes
        if let last = reads.last { notes.append("\(reads.count) step count read\(reads.count == 1 ? "" : "s"), the last \(last.steps)") }
        return DriverDownload(
            family: Self.family, service: Self.service, samples: steps + samples, events: events.events, problems: problems, notes: notes,
            cursors: ledger.advanced ? ledger.cursor?.cursors ?? [:] : [:], clock: clock)
    }
}
