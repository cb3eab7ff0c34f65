import Model

/// The receiver commands glucobridge may send. Only reads are listed: there is no way to build
/// a write, erase, reset or shutdown packet, because every outgoing packet is made from a
/// `DexcomCommand` and `init(rawValue:)` refuses every other id. This is the one place the
/// driver's read-only guarantee is enforced.
public enum DexcomCommand: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case ping = 0x0A
    case readFirmwareHeader = 0x0B
    case readDatabasePartitionInfo = 0x0F
    case readDatabasePageRange = 0x10
    case readDatabasePages = 0x11
    case readDatabasePageHeader = 0x12
    case readTransmitterID = 0x19
    case readLanguage = 0x1B
    case readDisplayTimeOffset = 0x1D
    case readRTC = 0x1F
    case readBatteryLevel = 0x21
    case readSystemTime = 0x22
    case readSystemTimeOffset = 0x23
    case readGlucoseUnit = 0x25
    case readBlindedMode = 0x27
    case readClockMode = 0x29
    case readDeviceMode = 0x2B
    case readBatteryState = 0x30
    case readHardwareBoardID = 0x31
    case readFirmwareSettings = 0x36
    case readChargerCurrentSetting = 0x3B

    public var description: String {
        switch self {
        case .ping: "Ping"
        case .readFirmwareHeader: "ReadFirmwareHeader"
        case .readDatabasePartitionInfo: "ReadDatabasePartitionInfo"
        case .readDatabasePageRange: "ReadDatabasePageRange"
        case .readDatabasePages: "ReadDatabasePages"
        case .readDatabasePageHeader: "ReadDatabasePageHeader"
        case .readTransmitterID: "ReadTransmitterID"
        case .readLanguage: "ReadLanguage"
        case .readDisplayTimeOffset: "ReadDisplayTimeOffset"
        case .readRTC: "ReadRTC"
        case .readBatteryLevel: "ReadBatteryLevel"
        case .readSystemTime: "ReadSystemTime"
        case .readSystemTimeOffset: "ReadSystemTimeOffset"
        case .readGlucoseUnit: "ReadGlucoseUnit"
        case .readBlindedMode: "ReadBlindedMode"
        case .readClockMode: "ReadClockMode"
        case .readDeviceMode: "ReadDeviceMode"
        case .readBatteryState: "ReadBatteryState"
        case .readHardwareBoardID: "ReadHardwareBoardID"
        case .readFirmwareSettings: "ReadFirmwareSettings"
        case .readChargerCurrentSetting: "ReadChargerCurrentSetting"
        }
    }
}

/// The code in byte 3 of a receiver's reply.
public enum DexcomReplyCode: UInt8, Sendable, CustomStringConvertible {
    case null = 0
    case ack = 1
    case nak = 2
    case invalidCommand = 3
    case invalidParameter = 4
    case incompletePacketReceived = 5
    case receiverError = 6
    case invalidMode = 7

    public var description: String {
        switch self {
        case .null: "NULL"
        case .ack: "ACK"
        case .nak: "NAK"
        case .invalidCommand: "INVALID_COMMAND"
        case .invalidParameter: "INVALID_PARAM"
        case .incompletePacketReceived: "INCOMPLETE_PACKET_RECEIVED"
        case .receiverError: "RECEIVER_ERROR"
        case .invalidMode: "INVALID_MODE"
        }
    }
}

/// Database partitions (record types) the driver reads.
package enum DexcomPartition: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case manufacturingData = 0
    case firmwareParameterData = 1
    case pcSoftwareParameter = 2
    case sensorData = 3
    case egvData = 4
    case calSet = 5
    case aberration = 6
    case insertionTime = 7
    case receiverLogData = 8
    case receiverErrorData = 9
    case meterData = 10
    case userEventData = 11
    case userSettingData = 12
    case backfilledEGVData = 18

    package var description: String {
        switch self {
        case .manufacturingData: "ManufacturingData"
        case .firmwareParameterData: "FirmwareParameterData"
        case .pcSoftwareParameter: "PCSoftwareParameter"
        case .sensorData: "SensorData"
        case .egvData: "EGVData"
        case .calSet: "CalSet"
        case .aberration: "Aberration"
        case .insertionTime: "InsertionTime"
        case .receiverLogData: "ReceiverLogData"
        case .receiverErrorData: "ReceiverErrorData"
        case .meterData: "MeterData"
        case .userEventData: "UserEventData"
        case .userSettingData: "UserSettingData"
        case .backfilledEGVData: "BackfilledEGVData"
        }
    }

    /// The store stream of the partition's records (`egv`, `meter`), for those glucobridge keeps.
    package var stream: RecordStream? {
        switch self {
        case .egvData: "egv"
        case .meterData: "meter"
        default: nil
        }
    }

    /// The partition whose records make up `stream`.
    package static func forStream(_ stream: RecordStream) -> DexcomPartition? {
        allCases.first { $0.stream == stream }
    }
}
