import Drivers
import Foundation
import Transport
import TransportReplay

/// The demo capture shipped in `fixtures/dexcom/`: a receiver holding two real pages from
/// ecc1/dexcom's test data (manufacturing page 0 and EGV page 312 of the same G4 receiver), served
/// by the simulator and recorded as `glucobridge import --record` records a live session. The host
/// clock is simulated: at download it reads the receiver's system clock plus `hostOffset`.
package enum DemoCapture {
    /// Seconds the simulated host clock runs ahead of the receiver's system clock.
    package static let hostOffset: TimeInterval = 14_400

    /// Records the demo capture to `output` from the ecc1 page files in `pagesFolder`
    /// (`0.0.data`, `4.312.data`: 528 bytes each as hex text).
    package static func record(pagesFolder: URL, to output: URL) throws {
        func page(_ name: String) throws -> [UInt8] {
            let text = try String(contentsOf: pagesFolder.appendingPathComponent(name), encoding: .utf8)
            guard let bytes = Hex.decode(Substring(text.filter { !$0.isNewline })), bytes.count == DexcomPage.size else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: name])
            }
            return bytes
        }
        let manufacturing = try page("0.0.data")
        let egv = try page("4.312.data")
        let lastRecordOffset = DexcomPageHeader.size + 13 * 22
        let lastSystem = egv.u32le(at: lastRecordOffset)
        let lastDisplay = egv.u32le(at: lastRecordOffset + 4)
        let systemNow = lastSystem + 150
        var tick = 0.0
        let clock = { () -> Date in
            tick += 0.001
            return Date(timeIntervalSince1970: TimeInterval(dexcomEpochOffsetFrom1970) + TimeInterval(systemNow) + hostOffset + tick)
        }
        let receiver = DexcomReceiverSimulator(
            pages: [DexcomPartition.manufacturingData.rawValue: [0: manufacturing], DexcomPartition.egvData.rawValue: [312: egv]],
            systemTime: systemNow, displayTimeOffset: Int32(Int64(lastDisplay) - Int64(lastSystem)), hostClock: clock)
        let recorder = try RecordingUSBTransport(recording: receiver, to: output, clock: clock)
        _ = try DexcomDriver.download(over: recorder, context: .fresh)
        try recorder.finish()
    }
}
