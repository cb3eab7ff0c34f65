import CaptureUSB
import Drivers
import Foundation
import Model
import Pipeline
import TestSupport
import Transport
import TransportReplay
import XCTest

/// One session of `driver` with `device`, three ways: read live while recorded to a usbmon pcap
/// (stamped by `hostClock`), the recording replayed by conversation, and the recording decoded
/// passively. Returns the three downloads and the recorded device.
func readRecordReplay(
    _ driver: any USBDeviceDriver.Type, _ device: any USBTransport, hostClock: @escaping () -> Date
) throws -> (downloads: [GlucoseDownload], recorded: RecordedUSBDevice) {
    let url = try Fixtures.temporaryDirectory().appendingPathComponent("\(driver.family).pcap")
    let recorder = try RecordingUSBTransport(recording: device, to: url, clock: hostClock)
    let live = try XCTUnwrap(try driver.session(over: recorder, context: .fresh).glucose)
    try recorder.finish()
    let devices = RecordedUSBDevice.devices(in: try USBCaptureReader.read(contentsOf: url)).filter(\.hasDataTransfers)
    let recorded = try XCTUnwrap(devices.first)
    let replay = try XCTUnwrap(try driver.session(over: ReplayUSBTransport(recorded, deadline: nil), context: .fresh).glucose)
    let passive = try XCTUnwrap(try driver.session(recorded: recorded, context: .fresh).glucose)
    return ([live, replay, passive], recorded)
}
