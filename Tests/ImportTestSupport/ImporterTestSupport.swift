import Drivers
import Foundation
import GRDB
import Importer
import Simulators
import Store
import TestSupport
import TransportReplay
import XCTest

/// A fresh store file in its own folder.
package func makeStore(zone: String = "America/Los_Angeles", file: StaticString = #filePath, line: UInt = #line) throws -> (SharedStore, URL) {
    let folder = try Fixtures.temporaryDirectory()
    let store = try SharedStore(path: folder.appendingPathComponent("store.sqlite").path, timeZone: TimeZone(identifier: zone)!)
    return (store, folder)
}

/// A simulated Dexcom receiver holding `readings` EGV readings (38 a page), recorded to `url` as
/// a live import records it (a usbmon pcap).
package func recordReceiverCapture(readings: Int, serial: String, to url: URL) throws {
    let last: UInt32 = 560_000_000
    let pages = DexcomPageBuilder.generatedEGVPages(count: readings, lastSystemSeconds: last, displayOffset: -25_200)
    let host = Date(timeIntervalSince1970: TimeInterval(dexcomEpochOffsetFrom1970) + TimeInterval(last + 60))
    let receiver = DexcomReceiverSimulator(
        pages: [
            DexcomPartition.manufacturingData.rawValue: [0: DexcomPageBuilder.manufacturingPage(serial: serial, systemSeconds: 1)],
            DexcomPartition.egvData.rawValue: pages,
        ],
        systemTime: last + 60, displayTimeOffset: -25_200, hostClock: { host })
    let recorder = try RecordingUSBTransport(recording: receiver, to: url, clock: { host })
    _ = try DexcomDriver.download(over: recorder, context: .fresh)
    try recorder.finish()
}
