import Transport

/// 16-bit UUIDs of the GATT services and characteristics whose values glucobridge decodes.
///
/// Sources: BlueZ src/shared/util.c UUID names; Bluetooth SIG GATT XML (oesmith/gatt-xml) service
/// definitions; Bluetooth SIG Assigned Numbers.
public enum BLEService: UInt16, Sendable, CaseIterable, CustomStringConvertible {
    case glucose = 0x1808
    case heartRate = 0x180D
    case runningSpeedAndCadence = 0x1814
    case cyclingSpeedAndCadence = 0x1816
    case continuousGlucoseMonitoring = 0x181F
    case fitnessMachine = 0x1826
    /// A Huami band's own service (Mi Band, Amazfit; not a Bluetooth SIG service).
    case huami = 0xFEE0
    /// Current Time Service (the watch's clock, read by the InfiniTime driver).
    case currentTime = 0x1805
    /// InfiniTime's Motion service, a 128-bit UUID (``InfiniTimeUUID/motionService``); its raw
    /// value is no SIG service's and names it only here.
    case infiniTimeMotion = 0x0003

    package var name: String {
        switch self {
        case .glucose: "Glucose"
        case .heartRate: "Heart Rate"
        case .runningSpeedAndCadence: "Running Speed and Cadence"
        case .cyclingSpeedAndCadence: "Cycling Speed and Cadence"
        case .continuousGlucoseMonitoring: "Continuous Glucose Monitoring"
        case .fitnessMachine: "Fitness Machine"
        case .huami: "Huami band"
        case .currentTime: "Current Time"
        case .infiniTimeMotion: "InfiniTime Motion"
        }
    }

    /// The service's UUID.
    package var uuid: BluetoothUUID {
        self == .infiniTimeMotion ? InfiniTimeUUID.motionService : BluetoothUUID(rawValue)
    }

    /// The known service with `uuid`, if any.
    package static func known(_ uuid: BluetoothUUID) -> BLEService? {
        allCases.first { $0.uuid == uuid }
    }

    public var description: String {
        self == .infiniTimeMotion ? "\(name) (\(uuid))" : "\(name) (\(Hex.literal(rawValue)))"
    }
}

/// The characteristics decoded under `Sources/Drivers/BLE`.
public enum BLECharacteristic: UInt16, Sendable, CaseIterable, CustomStringConvertible {
    case glucoseMeasurement = 0x2A18
    case glucoseMeasurementContext = 0x2A34
    case heartRateMeasurement = 0x2A37
    case bodySensorLocation = 0x2A38
    case heartRateControlPoint = 0x2A39
    case recordAccessControlPoint = 0x2A52
    case rscMeasurement = 0x2A53
    case cscMeasurement = 0x2A5B
    case cgmMeasurement = 0x2AA7
    case cgmFeature = 0x2AA8
    case cgmStatus = 0x2AA9
    case cgmSessionStartTime = 0x2AAA
    case cgmSessionRunTime = 0x2AAB
    case fitnessMachineFeature = 0x2ACC
    case treadmillData = 0x2ACD
    case indoorBikeData = 0x2AD2
    case currentTime = 0x2A2B
    /// InfiniTime's step count, a 128-bit UUID (``InfiniTimeUUID/stepCount``); its raw value is
    /// no SIG characteristic's.
    case infiniTimeStepCount = 0x0001

    package var name: String {
        switch self {
        case .glucoseMeasurement: "Glucose Measurement"
        case .glucoseMeasurementContext: "Glucose Measurement Context"
        case .heartRateMeasurement: "Heart Rate Measurement"
        case .bodySensorLocation: "Body Sensor Location"
        case .heartRateControlPoint: "Heart Rate Control Point"
        case .recordAccessControlPoint: "Record Access Control Point"
        case .rscMeasurement: "RSC Measurement"
        case .cscMeasurement: "CSC Measurement"
        case .cgmMeasurement: "CGM Measurement"
        case .cgmFeature: "CGM Feature"
        case .cgmStatus: "CGM Status"
        case .cgmSessionStartTime: "CGM Session Start Time"
        case .cgmSessionRunTime: "CGM Session Run Time"
        case .fitnessMachineFeature: "Fitness Machine Feature"
        case .treadmillData: "Treadmill Data"
        case .indoorBikeData: "Indoor Bike Data"
        case .currentTime: "Current Time"
        case .infiniTimeStepCount: "Step Count"
        }
    }

    /// The service the characteristic belongs to (RACP: the glucose services share it; CGMS is given).
    package var service: BLEService {
        switch self {
        case .glucoseMeasurement, .glucoseMeasurementContext: .glucose
        case .heartRateMeasurement, .bodySensorLocation, .heartRateControlPoint: .heartRate
        case .rscMeasurement: .runningSpeedAndCadence
        case .cscMeasurement: .cyclingSpeedAndCadence
        case .recordAccessControlPoint, .cgmMeasurement, .cgmFeature, .cgmStatus, .cgmSessionStartTime,
            .cgmSessionRunTime:
            .continuousGlucoseMonitoring
        case .fitnessMachineFeature, .treadmillData, .indoorBikeData: .fitnessMachine
        case .currentTime: .currentTime
        case .infiniTimeStepCount: .infiniTimeMotion
        }
    }

    /// The characteristic's UUID.
    package var uuid: BluetoothUUID {
        self == .infiniTimeStepCount ? InfiniTimeUUID.stepCount : BluetoothUUID(rawValue)
    }

    public var description: String {
        self == .infiniTimeStepCount ? "\(name) (\(uuid))" : "\(name) (\(Hex.literal(rawValue)))"
    }
}
