import Drivers
import Foundation
import TestSupport
import Transport
import XCTest

extension DriverConformanceKit {
    /// A family's coordinator through the contract's checks, the same for every bus:
    /// 1. **names**: a family name, a summary and capabilities;
    /// 2. **matches**: at least one, and each picks this family back through the registry (the
    ///    one place a driver is picked), and no other family;
    /// 3. **sample**: a real device's evidence (`sample`: a recorded USB id, a GATT service, a
    ///    file from `fixtures/`) picks it.
    package static func checkCoordinator(
        _ coordinator: any DeviceCoordinator.Type, sample: DeviceEvidence, file: StaticString = #filePath, line: UInt = #line
    ) {
        let name = coordinator.family
        XCTAssertFalse(name.rawValue.isEmpty, "a family has a name", file: file, line: line)
        XCTAssertEqual(name.rawValue, name.rawValue.lowercased(), "\(name): family names are lower case", file: file, line: line)
        XCTAssertNotEqual(name, .bluetoothActivity, "\(name): the bus's activity family is no driver's", file: file, line: line)
        XCTAssertFalse(coordinator.summary.isEmpty, "\(name): the coordinator has a summary", file: file, line: line)
        XCTAssertFalse(coordinator.capabilities.isEmpty, "\(name): the coordinator says what it reads", file: file, line: line)
        XCTAssertFalse(
            coordinator.capabilities.isDisjoint(with: [.glucose, .activity, .exercise]), "\(name): it reads glucose, activity or exercise",
            file: file, line: line)
        XCTAssertFalse(coordinator.matches.isEmpty, "\(name): the coordinator matches some device", file: file, line: line)
        XCTAssertEqual(
            DriverRegistry.family(named: name.rawValue.uppercased())?.family, name, "\(name): the registry finds it by name", file: file, line: line)
        for match in coordinator.matches {
            let picked = DriverRegistry.families(matching: evidence(for: match)).map { $0.family }
            XCTAssertEqual(picked, [name], "\(name): \(match) picks this family and no other", file: file, line: line)
        }
        XCTAssertEqual(
            DriverRegistry.families(matching: sample).map { $0.family }, [name], "\(name): a real device's evidence picks it", file: file,
            line: line)
    }

    /// The least a device can show for `match`.
    private static func evidence(for match: DeviceMatch) -> DeviceEvidence {
        switch match {
        case .usb(let product): .usb(vendorID: product.vendorID, productID: product.productID)
        case .gattService(let service): .gattServices([service.uuid])
        case .fileSignature(let signature):
            .fileHead([UInt8(signature.length)] + [UInt8](repeating: 0, count: signature.offset - 1) + signature.bytes)
        }
    }
}
