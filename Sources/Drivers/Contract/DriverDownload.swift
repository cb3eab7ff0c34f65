import Foundation
import Model
import Pipeline

/// What one driver's session read, whatever the bus: the one type every session returns
/// (``USBDeviceDriver``, ``BLEDeviceDriver``, ``FileDeviceDriver``), device-neutral. The import
/// pipeline normalises and stores it; nothing in it is written by the driver.
package struct DriverDownload: Sendable {
    /// The family of the driver that read it (``DeviceCoordinator/family``).
    package var family: DeviceFamily
    /// The GATT service it came from; nil off Bluetooth.
    package var service: BLEService?
    /// Activity samples, timed by the host clock at each notification or by the file.
    package var samples: [ActivitySample]
    /// Glucose records with the clock they are timed by.
    package var glucose: GlucoseDownload?
    /// Exercise the device logged itself (a meter's measurement context), timed by the clock of
    /// `glucose`.
    package var exercise: [DeviceExercise]
    /// Workouts the device logged itself (a band's sports summaries), graded into Exercise logs
    /// by the import beside the sessions it detects in `samples`.
    package var workouts: [LoggedWorkout]
    /// Samples or values read but not used, counted by reason (e.g. `malformed-heart-rate`); a
    /// glucose driver counts its records left out in `glucose.events` instead.
    package var events: [ImportEvent]
    /// Named problems: values that did not decode, refused or unanswered record requests.
    package var problems: [BLEDriverError]
    /// Plain remarks for the import report (where the band is worn, RACP counts, …).
    package var notes: [String]
    /// How far the device's stored activity history was read (stream → last record index), kept
    /// with the activity in the same transaction so that the next session reads only newer.
    package var cursors: RecordCursors
    /// The device's clock beside the host's, when the driver read it (a watch's Current Time);
    /// kept with the activity.
    package var clock: ClockReport?
    /// A file family's decoded file (its messages, sessions, the watch's zone, a cut named);
    /// nil off files.
    package var file: DecodedFile?

    package init(
        family: DeviceFamily, service: BLEService? = nil, samples: [ActivitySample] = [], glucose: GlucoseDownload? = nil,
        exercise: [DeviceExercise] = [], workouts: [LoggedWorkout] = [], events: [ImportEvent] = [], problems: [BLEDriverError] = [],
        notes: [String] = [],
        cursors: RecordCursors = [:], clock: ClockReport? = nil, file: DecodedFile? = nil
    ) {
        self.family = family
        self.service = service
        self.samples = samples
        self.glucose = glucose
        self.exercise = exercise
        self.workouts = workouts
        self.events = events
        self.problems = problems
        self.notes = notes
        self.cursors = cursors
        self.clock = clock
        self.file = file
    }

    /// How the import report names where it came from: its GATT service's name, or its family.
    package var serviceName: String { service?.name ?? family.rawValue }
}
