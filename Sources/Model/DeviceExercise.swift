/// Exercise a device logged itself (a glucose meter's measurement context): when it was noted,
/// by the device's clock, how long it lasted and how hard it was.
public struct DeviceExercise: Sendable, Equatable {
    /// The device's clock when the exercise was noted (the reading it belongs to), seconds since
    /// `DeviceClock.epoch`; the exercise ended then.
    public var deviceSeconds: Int64
    public var durationSeconds: Int
    /// Intensity in percent, as the device reports it.
    public var intensityPercent: Int
    /// The key a re-import finds it by, unique per source (e.g. `meter-exercise:17`).
    public var recordKey: String

    public init(deviceSeconds: Int64, durationSeconds: Int, intensityPercent: Int, recordKey: String) {
        self.deviceSeconds = deviceSeconds
        self.durationSeconds = durationSeconds
        self.intensityPercent = intensityPercent
        self.recordKey = recordKey
    }
}
