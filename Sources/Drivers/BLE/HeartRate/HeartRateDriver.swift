import Foundation
import Model
import Transport

/// Heart Rate service 0x180D: reads the Body Sensor Location, subscribes to Heart Rate
/// Measurement and turns each notification into an activity sample at its host time.
///
/// Mapping: beats/min → heart rate; contact bits 3 → skin contact, 2 → no contact, 0/1 → not
/// reported (nil); energy expended (kJ, running total) → total energy. RR-intervals are decoded
/// (and checked) but not stored: the store keeps minutes.
package final class HeartRateDriver: BLEDeviceDriver {
    package static let family: DeviceFamily = "ble-hrs"
    package static let service = BLEService.heartRate
    package static let capabilities: DeviceCapabilities = [.activity, .liveValues, .passiveDecode]
    package static let summary = "heart rate (with skin contact), energy expended; body sensor location noted"

    private let measurement: GATTCharacteristic?
    private let location: GATTCharacteristic?
    private var samples: [ActivitySample] = []
    private var events = EventCounter()
    private var problems: [BLEDriverError] = []
    private var notes: [String] = []

    package init(service: GATTService) {
        measurement = service.characteristic(.heartRateMeasurement)
        location = service.characteristic(.bodySensorLocation)
    }

    package var handles: Set<UInt16> { Set([measurement?.valueHandle].compactMap { $0 }) }

    package func start(on link: BLELink) throws(BLEDriverError) {
        if let location, location.properties.contains(.read),
            let value = try link.readOptional(location, name: BLECharacteristic.bodySensorLocation.name)
        {
            do {
                notes.append("heart rate sensor worn: \(try BodySensorLocation.decode(value.bytes))")
            } catch {
                problems.append(.value(error))
            }
        }
        guard let measurement else {
            notes.append("the Heart Rate service has no Heart Rate Measurement characteristic")
            return
        }
        try link.subscribe(measurement, to: .notifications)
    }

    package func take(_ notification: GATTNotification) {
        do {
            let decoded = try HeartRateMeasurement.decode(notification.value)
            let contact: Bool? =
                switch decoded.sensorContact {
                case .detected: true
                case .notDetected: false
                case .notSupported: nil
                }
            samples.append(
                ActivitySample(
                    time: notification.hostTime, sensor: .heartRateBand, heartRate: Double(decoded.beatsPerMinute),
                    skinContact: contact, totalEnergy: decoded.energyExpendedKilojoules.map(Double.init)))
        } catch {
            events.count("malformed-heart-rate")
            problems.append(.value(error))
        }
    }

    package func report(identity: BLEDeviceIdentity) -> DriverDownload {
        DriverDownload(
            family: Self.family, service: Self.service, samples: samples, events: events.events, problems: problems, notes: notes)
    }
}
