import Foundation
import Model
import Transport

/// Cycling Speed and Cadence service 0x1816: subscribes to CSC Measurement and turns each pair of
/// successive notifications into a bike sample at the later one's host time: crank cadence (rpm)
/// and wheel speed from `CSCRateCalculator` (counters differenced across rollover), and a running
/// total of distance summed from each interval's wheel revolutions (the sensor only counts
/// revolutions). The first notification only sets the counters.
package final class CyclingSpeedCadenceDriver: BLEDeviceDriver {
    package static let family: DeviceFamily = "ble-csc"
    package static let service = BLEService.cyclingSpeedAndCadence
    package static let capabilities: DeviceCapabilities = [.activity, .liveValues, .passiveDecode]
    package static let summary = "crank cadence, wheel speed and distance (counters differenced across rollover)"

    private let measurement: GATTCharacteristic?
    private var calculator: CSCRateCalculator
    private var distance = 0.0
    private var samples: [ActivitySample] = []
    private var events = EventCounter()
    private var problems: [BLEDriverError] = []

    package init(service: GATTService) {
        measurement = service.characteristic(.cscMeasurement)
        calculator = CSCRateCalculator()
    }

    package var handles: Set<UInt16> { Set([measurement?.valueHandle].compactMap { $0 }) }

    package func start(on link: BLELink) throws(BLEDriverError) {
        if let measurement { try link.subscribe(measurement, to: .notifications) }
    }

    package func take(_ notification: GATTNotification) {
        let decoded: CSCMeasurement
        do {
            decoded = try CSCMeasurement.decode(notification.value)
        } catch {
            events.count("malformed-csc-measurement")
            problems.append(.value(error))
            return
        }
        let first = calculator.previous == nil
        let rates = calculator.add(decoded)
        guard !first else { return }
        if let covered = rates.distanceMetres { distance += covered }
        samples.append(
            ActivitySample(
                time: notification.hostTime, sensor: .cycling, cadence: rates.cadenceRPM, speed: rates.speedMetresPerSecond,
                totalDistance: decoded.wheel == nil ? nil : distance))
    }

    package func report(identity: BLEDeviceIdentity) -> DriverDownload {
        DriverDownload(family: Self.family, service: Self.service, samples: samples, events: events.events, problems: problems)
    }
}
