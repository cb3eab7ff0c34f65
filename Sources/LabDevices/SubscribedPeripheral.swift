import Simulators
import Transport

/// A device that sends on its own only once the central has subscribed to one characteristic
/// (a Client Characteristic Configuration write to its descriptor): a PineTime's notifications
/// wait for the central's last subscription, the step count's, so that none is sent, and
/// dropped, before the central has asked for it.
final class SubscribedPeripheral: PeripheralModel {
    let base: SimulatedPeripheral
    /// The descriptor's handle: the characteristic's CCCD follows its value.
    let descriptor: UInt16?
    private var subscribed = false

    init(_ base: SimulatedPeripheral, after characteristic: BluetoothUUID) {
        self.base = base
        descriptor = base.valueHandle(of: characteristic).map { $0 + 1 }
    }

    func answers(to pdu: [UInt8]) -> [[UInt8]] {
        if pdu.count >= 5, pdu[0] == ATTOpcode.writeRequest.rawValue, UInt16(pdu[1]) | UInt16(pdu[2]) << 8 == descriptor, pdu[3] != 0 {
            subscribed = true
        }
        return base.answers(to: pdu)
    }

    var isStreaming: Bool { subscribed && base.isStreaming }

    func nextOnItsOwn() -> PeripheralEmission? { base.nextOnItsOwn() }
}
