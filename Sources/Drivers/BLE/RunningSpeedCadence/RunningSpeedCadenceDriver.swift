import Foundation
import Model
import Transport

/// Running Speed and Cadence service 0x1814: subscribes to RSC Measurement and turns each
/// notification into a running-pod sample at its host time (cadence per minute, speed m/s,
/// total distance m, walking or running as the pod says).
package final class RunningSpeedCadenceDriver: BLEDeviceDriver {
    package static let family: DeviceFamily = "ble-rsc"
    package static let service = BLEService.runningSpeedAndCadence
    package static let capabilities: DeviceCapabilities = [.activity, .liveValues, .passiveDecode]
    package static let summary = "cadence, speed, total distance, walking/running"

    private let measurement: GATTCharacteristic?
    private var samples: [ActivitySample] = []
    private var events = EventCounter()
    private var problems: [BLEDriverError] = []

    package init(service: GATTService) {
        measurement = service.characteristic(.rscMeasurement)
    }

    package var handles: Set<UInt16> { Set([measurement?.valueHandle].compactMap { $0 }) }

    package func start(on link: BLELink) throws(BLEDriverError) {
        if let measurement { try link.subscribe(measurement, to: .notifications) }
    }

    package func take(_ notification: GATTNotification) {
        do {
            let decoded = try RSCMeasurement.decode(notification.value)
            samples.append(
                ActivitySample(
                    time: notification.hostTime, sensor: .runningPod, cadence: Double(decoded.cadencePerMinute),
                    speed: decoded.speedMetresPerSecond, totalDistance: decoded.totalDistanceMetres,
                    gait: decoded.isRunning ? .running : .walking))
        } catch {
            events.count("malformed-rsc-measurement")
            problems.append(.value(error))
        }
    }

    package func report(identity: BLEDeviceIdentity) -> DriverDownload {
        DriverDownload(family: Self.family, service: Self.service, samples: samples, events: events.events, problems: problems)
    }
}
