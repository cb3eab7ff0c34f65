import Drivers
import Foundation
import TransportReplay

/// The synthetic FreeStyle Libre session in `fixtures/freestyle/` (see its PROVENANCE.md): a
/// simulated Libre reader (1a61:3650, no OUT endpoint, so the host sends SET_REPORTs) holding
/// records written here by hand in the documented text layouts, read by `FreeStyleDriver` and
/// recorded as `glucobridge import --record` records a live session. No byte of it comes from a
/// real reader.
public enum FreeStyleDemo {
    /// The reader's clock: 2025-03-14 09:30 on its wall clock.
    package static let date = "3,14,25"
    package static let time = "9,30"
    /// The simulated host clock at the start of the session: 2025-03-14 08:32:00 UTC, that is
    /// 09:32 in Central European Time, two minutes ahead of the reader.
    package static let hostStart = Date(timeIntervalSince1970: 1_741_941_120)

    /// `$history?`, newest first: `id,12,M,D,YY,h,m,s,1,0,0,0,first,glucose,age,errors`.
    /// Row 410 is flagged invalid (0x8000 = 32768); row 407 is the first of its sensor.
    package static let history = [
        "412,12,3,14,25,9,16,5,1,0,0,0,0,112,7246,0",
        "411,12,3,14,25,9,1,5,1,0,0,0,0,118,7231,0",
        "410,12,3,14,25,8,46,5,1,0,0,0,0,0,7216,32768",
        "409,12,3,14,25,8,31,5,1,0,0,0,0,131,7201,0",
        "408,12,3,14,25,8,16,5,1,0,0,0,0,38,7186,0",
        "407,12,3,14,25,8,1,5,1,0,0,0,1,64,7171,0",
    ]

    /// `$arresult?`, newest first. Type 2 rows: 9 reading type (0 strip, 1 ketone, 2 scan),
    /// 12 value, 13 strip/sensor, 14 trend arrow, 28 error bits, 29–34 comments. Type 5 rows:
    /// 2–7 new time, 9–14 old time.
    package static let arresult = [
        "1205,2,3,14,25,9,12,40,1,2,0,0,115,1,4,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\"\",\"\",\"\",\"\",\"\",\"\"",
        "1204,2,3,14,25,8,50,2,1,2,0,0,126,1,4,0,0,0,0,0,0,0,0,0,0,0,0,0,32768,\"\",\"\",\"\",\"\",\"\",\"\"",
        "1203,2,3,14,25,7,56,30,1,1,0,0,9,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\"\",\"\",\"\",\"\",\"\",\"\"",
        "1202,2,3,14,25,7,55,12,1,0,0,0,96,0,0,0,0,0,0,0,0,0,0,0,0,1,30,0,0,\"\",\"\",\"\",\"\",\"\",\"\"",
        "1201,5,3,13,25,22,0,0,1,3,13,25,21,0,0",
        "1200,2,3,13,25,20,41,9,1,2,0,0,500,1,5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\"\",\"\",\"\",\"\",\"\",\"\"",
    ]

    package static let serial = "JCMV000-S0001"

    /// `$history?` as a Libre 3 reader writes it: the same rows without field 12, so the glucose
    /// is field 12 and the error bits field 14 (glucometerutils pull request #131).
    package static let libre3History = history.map { row in
        var fields = row.split(separator: ",", omittingEmptySubsequences: false)
        fields.remove(at: 12)
        return fields.joined(separator: ",")
    }

    /// `$arresult?` as a Libre 3 reader writes it: result rows (type 2) end with field 27, with
    /// no error bits and no custom comments (glucometerutils pull request #131); time changes
    /// (type 5) are as the Libre's. Row 1204, flagged invalid by its error bits on the Libre, is
    /// a reading here.
    package static let libre3Arresult = arresult.map { row in
        let fields = row.split(separator: ",", omittingEmptySubsequences: false)
        return fields[1] == "2" ? fields.prefix(28).joined(separator: ",") : row
    }

    /// The simulated reader, its host clock advancing 1 ms at each reading of it.
    package static func reader() -> FreeStyleReaderSimulator {
        var tick = 0.0
        let clock = { () -> Date in
            tick += 0.001
            return hostStart.addingTimeInterval(tick)
        }
        return FreeStyleReaderSimulator(
            productID: 0x3650, outEndpoint: false, serial: serial, softwareVersion: "2.3.2", date: date, time: time,
            records: ["$history?": history, "$arresult?": arresult], hostClock: clock)
    }

    /// The demo records in a simulated Libre 2 (`productID` 0x3950) or Libre 3 (0x3960, in the
    /// Libre 3's row layout) reader holding `keys`: the encrypted session, with an interrupt OUT
    /// endpoint.
    public static func encryptedReader(keys: FreeStyleKeys, productID: UInt16 = 0x3950) -> FreeStyleReaderSimulator {
        let reader = reader()
        let records = productID == 0x3960 ? ["$history?": libre3History, "$arresult?": libre3Arresult] : reader.records
        let encrypted = FreeStyleReaderSimulator(
            productID: productID, outEndpoint: true, serial: "MAGA987-J0123", softwareVersion: "1.0.12", date: date, time: time,
            records: records, hostClock: reader.hostClock)
        encrypted.keys = keys
        return encrypted
    }

    /// Records the demo session to `output` as a usbmon pcap.
    package static func record(to output: URL) throws {
        try record(reader(), to: output)
    }

    /// Records a session with `reader` to `output` as a usbmon pcap, as `glucobridge import
    /// --record` does.
    package static func record(_ reader: FreeStyleReaderSimulator, to output: URL) throws {
        let recorder = try RecordingUSBTransport(recording: reader, to: output, clock: reader.hostClock)
        _ = try FreeStyleDriver.download(over: recorder, context: .fresh)
        try recorder.finish()
    }
}
