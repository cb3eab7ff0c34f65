import Foundation
import Model
import Transport

/// Fitness Machine service 0x1826: subscribes to Treadmill Data and Indoor Bike Data when the
/// machine has them and turns each notification into a sample at its host time — a treadmill as
/// a fitness machine (speed, total distance, heart rate), a bike as a bike (speed, cadence,
/// total distance, heart rate). Speeds arrive in 0.01 km/h and are stored in m/s. Energy is not
/// used: the machines' totals are in kcal and the "not available" value is not researched.
///
/// Many machines (the treadmill in fixtures/ble) keep their data on a vendor service beside
/// FTMS; their notifications reach no driver and are counted per handle in the session result.
package final class FitnessMachineDriver: BLEDeviceDriver {
    package static let family: DeviceFamily = "ble-ftms"
    package static let service = BLEService.fitnessMachine
    package static let capabilities: DeviceCapabilities = [.activity, .liveValues, .passiveDecode]
    package static let summary = "treadmill speed and distance, indoor bike speed, cadence and distance, their heart rate"

    private let treadmill: GATTCharacteristic?
    private let bike: GATTCharacteristic?
    private var samples: [ActivitySample] = []
    private var events = EventCounter()
    private var problems: [BLEDriverError] = []

    package init(service: GATTService) {
        treadmill = service.characteristic(.treadmillData)
        bike = service.characteristic(.indoorBikeData)
    }

    package var handles: Set<UInt16> { Set([treadmill?.valueHandle, bike?.valueHandle].compactMap { $0 }) }

    package func start(on link: BLELink) throws(BLEDriverError) {
        for characteristic in [treadmill, bike].compactMap({ $0 }) where characteristic.properties.contains(.notify) {
            try link.subscribe(characteristic, to: .notifications)
        }
    }

    package func take(_ notification: GATTNotification) {
        do {
            if notification.handle == treadmill?.valueHandle {
                let data = try TreadmillData.decode(notification.value)
                samples.append(
                    ActivitySample(
                        time: notification.hostTime, sensor: .fitnessMachine, heartRate: data.heartRate.map(Double.init),
                        speed: data.instantaneousSpeedKilometresPerHour.map { $0 / 3.6 },
                        totalDistance: data.totalDistanceMetres.map(Double.init)))
            } else {
                let data = try IndoorBikeData.decode(notification.value)
                samples.append(
                    ActivitySample(
                        time: notification.hostTime, sensor: .cycling, heartRate: data.heartRate.map(Double.init),
                        cadence: data.instantaneousCadenceRPM, speed: data.instantaneousSpeedKilometresPerHour.map { $0 / 3.6 },
                        totalDistance: data.totalDistanceMetres.map(Double.init)))
            }
        } catch {
            events.count("malformed-fitness-machine-data")
            problems.append(.value(error))
        }
    }

    package func report(identity: BLEDeviceIdentity) -> DriverDownload {
        DriverDownload(family: Self.family, service: Self.service, samples: samples, events: events.events, problems: problems)
    }
}
