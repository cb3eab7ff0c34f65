import ArgumentParser
import CaptureUSB
import Drivers
import Foundation
import Simulators
import Transport
import TransportReplay

#if canImport(Glibc)
    import Glibc
#endif

/// The device models of the device lab (Lab/): the project's simulators, and any recorded device,
/// served as real devices to a real kernel: USB gadgets on a UDC (dummy_hcd in the lab) and a
/// Bluetooth LE peripheral on a controller (btvirt's in the lab). Run as root inside the lab VM.
@main
struct LabDevice: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "glucobridge-lab-device",
        abstract: "Serves a simulated or recorded diabetes device to this machine's kernel, for the device lab.",
        subcommands: [USB.self, BLE.self])
}

/// Writes a line to stderr, prefixed, flushed at once (the lab reads it in its log).
func labLog(_ line: String) {
    FileHandle.standardError.write(Data("lab-device: \(line)\n".utf8))
}

extension LabDevice {
    struct USB: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "A USB gadget: a Dexcom receiver, an Accu-Chek meter or a OneTouch Verio disk (FunctionFS), a FreeStyle reader (Libre 2 and 3: encrypted, with the keys glucobridge finds) or a Contour meter (f_hid), or a captured device."
        )

        enum Model: String, ExpressibleByArgument, CaseIterable {
            case dexcom, freestyle, libre2, libre3, contour, accuchek, verio, capture
        }

        @Argument(help: "What the gadget is: \(Model.allCases.map(\.rawValue).joined(separator: ", ")).")
        var model: Model

        @Option(help: "dexcom: Days of generated readings the receiver holds.")
        var days = 90

        @Option(help: "dexcom: the receiver's serial number.")
        var serial = "SMLAB0001"

        @Option(
            help: "accuchek: how many results the meter holds (0: an empty memory, 720: a Guide's whole memory); nine lab results when not given.")
        var results: Int?

        @Flag(help: "accuchek: the meter reads in mmol/L.")
        var mmol = false

        @Flag(help: "accuchek: the meter's answer to GET is a malformed APDU (its attribute list longer than the APDU).")
        var malformed = false

        @Option(help: "verio: the INQUIRY vendor of the disk (another than LifeScan: a disk that is not a meter).")
        var vendor = "LifeScan"

        @Option(help: "capture: the usbmon pcap/pcapng or USBPcap file whose device is served (its recorded answers).")
        var file: String?

        @Option(help: "A fault made once: unplug, silence or stall.")
        var fault: USBFault?

        @Option(help: "How many answers before the fault (verio: how many READ RECORD commands it takes first).")
        var after = 5

        @Option(help: "The UDC the gadget binds to.")
        var udc = "dummy_udc.0"

        @Option(help: "The gadget's name in configfs.")
        var name = "glucobridge"

        @Flag(help: "Leave the gadget unbound: plugging it in is left to the caller (echo UDC > …/UDC).")
        var unplugged = false

        func run() throws {
            signal(SIGPIPE, SIG_IGN)
            let makeModel = try modelFactory()
            // The model the gadget is described from is the one the host is served first.
            let firstModel = try makeModel()
            let device = firstModel.device
            let server: USBGadgetServer
            let gadget: Gadget
            if device.interfaces.contains(where: { $0.interfaceClass == USBInterface.classHID }) {
                gadget = try Gadget(name: name, device: device, function: "hid.\(name)", udc: udc) { folder in
                    try Gadget.write(Array("0".utf8), to: "\(folder)/protocol")
                    try Gadget.write(Array("0".utf8), to: "\(folder)/subclass")
                    try Gadget.write(Array("64".utf8), to: "\(folder)/report_length")
                    try Gadget.write(Self.vendorReportDescriptor, to: "\(folder)/report_desc")
                    let hasOut = device.interfaces.flatMap(\.endpoints).contains { $0.direction == .out && $0.type == .interrupt }
                    if !hasOut, FileManager.default.fileExists(atPath: "\(folder)/no_out_endpoint") {
                        try Gadget.write(Array("1".utf8), to: "\(folder)/no_out_endpoint")
                    }
                }
                try gadget.plugIfWanted(!unplugged)
                server = USBGadgetServer(
                    gadget: gadget, pipe: .hidg(try Self.hidgNode(gadget)), fault: fault.map { ($0, after) }, log: labLog,
                    firstModel: firstModel, makeModel: makeModel)
            } else {
                gadget = try Gadget(name: name, device: device, function: "ffs.\(name)", udc: udc) { _ in }
                let function = try FunctionFS(name: name, mountPoint: "/run/ffs-\(name)", interfaces: device.interfaces)
                let sessions = HostSessions()
                function.serveControl { event in
                    if event == .enable { sessions.started() }
                    if event == .enable || event == .disable { labLog("host \(event == .enable ? "configured" : "released") the device") }
                }
                try gadget.plugIfWanted(!unplugged)
                server = USBGadgetServer(
                    gadget: gadget, pipe: .functionFS(function), sessions: sessions, fault: fault.map { ($0, after) }, log: labLog,
                    firstModel: firstModel, makeModel: makeModel)
            }
            labLog("serving \(device.idString) (\(model.rawValue)) on \(udc)")
            try server.run()
        }

        /// A vendor-defined HID report descriptor with 64-byte input and output reports, the shape
        /// of the FreeStyle readers' (usage page 0xFF00).
        static let vendorReportDescriptor: [UInt8] = [
            0x06, 0x00, 0xFF, 0x09, 0x01, 0xA1, 0x01,
            0x09, 0x20, 0x15, 0x00, 0x26, 0xFF, 0x00, 0x75, 0x08, 0x95, 0x40, 0x81, 0x02,
            0x09, 0x21, 0x15, 0x00, 0x26, 0xFF, 0x00, 0x75, 0x08, 0x95, 0x40, 0x91, 0x02,
            0xC0,
        ]

        /// The `/dev/hidgN` node of the gadget's HID function (its `dev` attribute: major:minor).
        static func hidgNode(_ gadget: Gadget) throws -> String {
            let attribute = "\(gadget.folder)/functions/\(gadget.functionName)/dev"
            let text = (try? String(contentsOfFile: attribute, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard let minor = text.split(separator: ":").last.flatMap({ Int($0) }) else {
                throw LabDeviceError("cannot read the HID gadget's device number from \(attribute)")
            }
            return "/dev/hidg\(minor)"
        }

        func modelFactory() throws -> () throws -> any USBTransport {
            switch model {
            case .dexcom:
                let days = days
                let serial = serial
                return { GeneratedHistory.receiver(days: days, serial: serial, hostClock: { Date() }) }
            case .freestyle:
                return {
                    let reader = FreeStyleDemo.reader()
                    reader.hostClock = { Date() }
                    return reader
                }
            case .libre2, .libre3:
                let keys: FreeStyleKeys
                do {
                    keys = try FreeStyleKeys.locate()
                } catch {
                    throw LabDeviceError("\(error)")
                }
                let productID: UInt16 = model == .libre2 ? 0x3950 : 0x3960
                return {
                    let reader = FreeStyleDemo.encryptedReader(keys: keys, productID: productID)
                    reader.hostClock = { Date() }
                    return reader
                }
            case .contour:
                return { ContourLab.meter() }
            case .accuchek:
                let results = results
                let mmol = mmol
                let malformed = malformed
                return {
                    let meter = AccuChekLab.meter(results: results, mmol: mmol)
                    if malformed { meter.replacedAPDUs[2] = AccuChekLab.malformedGetResponse }
                    return meter
                }
            case .verio:
                let results = results
                let mmol = mmol
                let malformed = malformed
                let vendor = vendor
                return {
                    let meter = VerioLab.meter(results: results, mmol: mmol, vendor: vendor)
                    if malformed { meter.meter.spoiltReplies = [5] }
                    return meter
                }
            case .capture:
                guard let file else { throw ValidationError("capture needs --file FILE") }
                let capture: USBCapture
                do {
                    capture = try USBCaptureReader.read(contentsOf: URL(fileURLWithPath: file))
                } catch {
                    throw LabDeviceError("\(error)")
                }
                let devices = RecordedUSBDevice.devices(in: capture)
                guard
                    let recorded = devices.first(where: {
                        DriverRegistry.usbDriver(vendorID: $0.description.vendorID, productID: $0.description.productID) != nil
                    }) ?? devices.max(by: { $0.transfers.count < $1.transfers.count })
                else {
                    throw LabDeviceError("\(file) holds no device")
                }
                return { ReplayUSBTransport(recorded) }
            }
        }
    }

    struct BLE: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "A Bluetooth LE peripheral on a controller: the simulated heart-rate band, running pod, bike sensor, treadmill, CGM or glucose meter (with their RACP), Huami band, PineTime, or a captured device."
        )

        enum Model: String, ExpressibleByArgument, CaseIterable {
            case heartRate = "heart-rate"
            case runningPod = "running-pod"
            case bike
            case treadmill
            case cgm
            case meter
            case huami
            case pinetime
            case capture
        }

        @Argument(help: "What the peripheral is: \(Model.allCases.map(\.rawValue).joined(separator: ", ")).")
        var model: Model

        @Option(help: "The controller index (hciN) the peripheral listens on.")
        var index: Int32 = 1

        @Option(
            help:
                "heart-rate, running-pod, bike, treadmill: seconds of measurements, one a second, sent one per 7.5 ms of quiet once the central listens."
        )
        var seconds = 120

        @Option(
            help:
                "heart-rate: instead, notify as fast as the link allows for this many seconds once the central listens, then end (a burst)."
        )
        var burst: Int?

        @Option(help: "cgm: the stored readings in tenths of mg/dL (539 is 53.9), oldest first, five minutes apart.")
        var tenths = "539,540,696,699,700,1801,1804,2045"

        @Option(help: "huami: the band's auth key, 32 hex digits (a test key the caller made; glucobridge reads it from a key file).")
        var key: String?

        @Option(help: "huami: days of per-minute history the band holds (from 2024-03-29 in Berlin, over the spring DST change).")
        var days = 3

        @Option(help: "pinetime: the watch's step count when the central connects (two step notifications of 4 steps follow).")
        var steps: UInt32 = 4000

        @Option(help: "pinetime: the zone of the watch's clock (the true time there).")
        var zone = "Europe/Berlin"

        @Option(help: "Drop the link after this many PDUs sent (a fault).")
        var dropAfter: Int?

        @Option(help: "Drop the link after this many notifications and indications sent (a fault in the middle of an RACP transfer).")
        var dropAfterValues: Int?

        @Option(help: "capture: the btsnoop file whose device is served (its first connection carrying ATT, from the central's side).")
        var file: String?

        func run() throws {
            signal(SIGPIPE, SIG_IGN)
            let peripheral: any PeripheralModel
            switch model {
            case .heartRate:
                if let burst {
                    peripheral = BurstingHeartRateBand(seconds: burst)
                } else {
                    peripheral = HeartRateBandDemo.band(clock: SimulatedClock(Date().addingTimeInterval(-Double(seconds) - 60)), seconds: seconds)
                }
            case .runningPod, .bike, .treadmill:
                let sensor: SportSensorDemo.Sensor = model == .runningPod ? .runningPod : model == .bike ? .bike : .treadmill
                let start = Date().addingTimeInterval(-Double(seconds) - 60)
                peripheral = SportSensorDemo.device(sensor, seconds: seconds, start: start, clock: SimulatedClock(start))
            case .cgm:
                let values = tenths.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                let clock = SimulatedClock(ContinuousGlucoseSensorDemo.connected)
                peripheral = StayingPeripheral(
                    ContinuousGlucoseSensorDemo.sensor(tenths: values, clock: clock), leavesAfter: StayingPeripheral.endsRACPTransfer)
            case .meter:
                peripheral = StayingPeripheral(
                    GlucoseMeterDemo.meter(clock: SimulatedClock(Date())), leavesAfter: StayingPeripheral.endsRACPTransfer)
            case .huami:
                guard let key, let bytes = Hex.decode(Substring(key)), bytes.count == 16 else {
                    throw ValidationError("huami needs --key with the band's auth key, 32 hex digits")
                }
                let band = HuamiBandDemo.band(days: days, key: bytes, workouts: true)
                peripheral = PacedPeripheral(band.peripheral(clock: SimulatedClock(Date())), leavesAfter: PacedPeripheral.endsHuamiFetches())
            case .pinetime:
                guard let watchZone = TimeZone(identifier: zone) else { throw ValidationError("pinetime: no zone \(zone)") }
                let watch = PineTimeSimulator(zone: watchZone, steps: steps, beatsPerMinute: 74)
                watch.stepNotifications = [(1, steps + 4), (2, steps + 8)]
                watch.heartRateNotifications = [(1, 76), (2, 78)]
                let now = Date()
                peripheral = SubscribedPeripheral(watch.peripheral(connected: now, clock: SimulatedClock(now)), after: InfiniTimeUUID.stepCount)
            case .capture:
                guard let file else { throw ValidationError("capture needs --file FILE") }
                do {
                    peripheral = CapturedPeripheral(try ReplayATTBearer(contentsOf: URL(fileURLWithPath: file)))
                } catch {
                    throw LabDeviceError("\(error)")
                }
            }
            guard dropAfter == nil || dropAfterValues == nil else {
                throw ValidationError("--drop-after and --drop-after-values are two faults: give one")
            }
            let fault = dropAfter.map { BLEFault(after: $0, counted: .pdus) } ?? dropAfterValues.map { BLEFault(after: $0, counted: .values) }
            let server = BLEPeripheralServer(index: index, model: peripheral, fault: fault, log: labLog)
            server.unpaced = burst != nil
            try server.run()
            labLog("session over")
        }
    }
}

/// The lab's Contour meter: six results around the consensus edges (54, 70, 180, 250 mg/dL),
/// six hours apart up to an hour before the machine booted, its clock on the lab's (UTC) time.
/// The results hang on the boot time, not on the time of plugging in, so that every plug-in of
/// one VM serves the same records (a minute passing between two plug-ins would otherwise give
/// them new times, and so new record keys).
enum ContourLab {
    static let values = [53, 54, 69, 70, 181, 251]

    static func meter() -> ContourMeterSimulator {
        let now = Date()
        let anchor = bootTime() ?? now
        let format = Date.VerbatimFormatStyle(
            format:
                "\(year: .defaultDigits)\(month: .twoDigits)\(day: .twoDigits)\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased))\(minute: .twoDigits)",
            timeZone: TimeZone(identifier: "UTC")!, calendar: Calendar(identifier: .gregorian))
        let results = values.enumerated().map { index, value in
            let time = anchor.addingTimeInterval(-3600 - Double(values.count - 1 - index) * 6 * 3600)
            return "R|\(index + 1)|^^^Glucose|\(value)|mg/dL^P||||\(time.formatted(format))"
        }
        return ContourMeterSimulator(serial: "7390-LAB0001", unit: 0, clock: now.formatted(format), results: results, hostClock: { Date() })
    }

    /// When this machine booted: `btime` of /proc/stat (proc(5)).
    static func bootTime() -> Date? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
            let seconds = TimeInterval(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}

/// The lab's Accu-Chek Guide: results around the consensus edges, a HI, a LO and a control
/// result, six hours apart up to an hour before the machine booted (so that every plug-in of one
/// VM serves the same records), its clock on the lab's (UTC) time, in mg/dL; four results to a
/// segment-data event.
enum AccuChekLab {
    static let values: [UInt16] = [53, 54, 69, 70, 181, 251, AccuChekMeterSimulator.high, AccuChekMeterSimulator.low, 120]
    /// The entry that is a control-solution test.
    static let control = 8

    /// A GET response (invoke-id 1) whose attribute list says 9 bytes where 2 are left, at byte 16.
    static let malformedGetResponse: [UInt8] = [
        0xE7, 0x00, 0x00, 0x10, 0x00, 0x0E, 0x00, 0x01, 0x02, 0x03, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x09, 0x09, 0x84,
    ]

    /// The nine lab results, or `results` generated ones (every two hours; in mmol/L tenths with
    /// `mmol`).
    static func meter(results: Int? = nil, mmol: Bool = false) -> AccuChekMeterSimulator {
        let now = Int64(Date().timeIntervalSince1970)
        let anchor = ContourLab.bootTime().map { Int64($0.timeIntervalSince1970) } ?? now
        let entries: [AccuChekEntry]
        if let results {
            entries = (0..<results).map { index in
                let mgdl = 40 + (index * 37) % 361
                let value = mmol ? AccuChekMeterSimulator.sfloat(Double(mgdl) / 18, unit: .millimolesPerLiter) : UInt16(mgdl)
                return AccuChekEntry(
                    position: Int64(index), time: PHDAbsoluteTime(seconds: anchor - 3600 - Int64(results - 1 - index) * 2 * 3600),
                    glucose: value, status: 0)
            }
        } else {
            entries = values.enumerated().map { index, value in
                AccuChekEntry(
                    position: Int64(index), time: PHDAbsoluteTime(seconds: anchor - 3600 - Int64(values.count - 1 - index) * 6 * 3600),
                    glucose: value, status: index == control ? AccuChekEntry.testData : 0)
            }
        }
        let meter = AccuChekMeterSimulator(
            serial: "92900LAB001", unit: mmol ? .millimolesPerLiter : .milligramsPerDeciliter, clock: PHDAbsoluteTime(seconds: now),
            entries: entries, hostClock: { Date() })
        // Three segment-data events, so that a fault can fall between two of them.
        meter.entriesPerEvent = 4
        // Read again without being unplugged, as the lab's imports do.
        meter.reassociatesAfterRelease = true
        return meter
    }
}

/// The lab's OneTouch Verio Reflect (2766:000c): the Accu-Chek's lab values as records two
/// hours apart up to an hour before the machine booted (nine, or `results` generated ones), the
/// ninth a control-solution test, its clock on the lab's (UTC) time; the display unit mmol/L
/// with `mmol` (records are mg/dL either way).
enum VerioLab {
    static let values: [UInt16] = [53, 54, 69, 70, 181, 251, 600, 20, 120]

    static func meter(results: Int? = nil, mmol: Bool = false, vendor: String = "LifeScan") -> VerioMeterSimulator {
        let epoch: Int64 = 946_684_800
        let now = Int64(Date().timeIntervalSince1970)
        let anchor = ContourLab.bootTime().map { Int64($0.timeIntervalSince1970) } ?? now
        let newest = UInt32(anchor - 3600 - epoch)
        let count = results ?? values.count
        let generated = results.map { n in (0..<max(n, 1)).map { UInt16(40 + ($0 * 37) % 361) } }
        let records =
            count == 0
            ? []
            : VerioMeter.history(
                count: count, newest: newest, every: 7200, values: generated ?? values.reversed(),
                flags: results == nil ? [0: VerioRecord.controlSolution] : [:])
        let disk = VerioMeter(
            serial: "RPTLAB0001", model: "OneTouch Verio Reflect", unitParameter: mmol ? 1 : 0, clock: UInt32(now - epoch), records: records,
            vendor: vendor)
        return VerioMeterSimulator(meter: disk, productID: 0x000C, hostClock: { Date() })
    }
}

/// `--fault unplug|silence|stall`.
extension USBFault: ExpressibleByArgument {}

extension Gadget {
    func plugIfWanted(_ wanted: Bool) throws {
        if wanted { try plug() }
    }
}
