import AppTestSupport
import Foundation
import ImportTestSupport
import TestSupport
import XCTest

/// Every export's exact bytes, from the built `glucobridge` on a store filled from the fixtures'
/// captures (the Dexcom G4 receiver, the Contour meter, the Libre reader, in New York), logs
/// entered on the command line (mmol/L and fractional mg/dL values, fractional seconds), and text
/// another program wrote into the store: commas, quotes, line breaks (LF, CR, CR LF), control
/// characters, non-ASCII, a combining mark after a comma and after a quote, a NUL and a byte that
/// is not UTF-8. The expected bytes are what the exports wrote before they streamed, kept here
/// so that any change of a byte fails.
final class ExportBytesEndToEndTests: XCTestCase {
    func edgeStore() throws -> CLIStore {
        let cli = try CLIStore(zone: "America/New_York")
        try cli.replayDexcomCapture()
        for capture in ["contour/contour-usb-session.txt", "freestyle/libre-synthetic.pcap"] {
            let result = try runProcess(BuiltProducts.executable("glucobridge"), ["replay", Fixtures.url(capture).path, "--store", cli.path])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        for arguments in [
            ["log", "glucose", "--at", "2015-07-17 07:05", "--value", "3.9", "--unit", "mmol/L"],
            ["log", "glucose", "--at", "2015-07-17 08:05", "--value", "99.7", "--unit", "mg/dL"],
            ["log", "glucose", "--at", "2015-07-17 09:05", "--value", "69.6", "--unit", "mg/dL"],
            ["log", "glucose", "--at", "2015-07-17T13:06:07.5Z", "--value", "204.5", "--unit", "mg/dL"],
            ["log", "glucose", "--at", "2015-07-17T13:07:07.123Z", "--value", "10.0", "--unit", "mmol/L"],
            ["log", "insulin", "--at", "2015-07-17 12:25", "--units", "4.5"],
            ["log", "meal", "--at", "2015-07-17 12:30", "--name", "Oatmeal, \"warm\"\nwith milk — crème", "--carbs", "45.25", "--protein", "8"],
            ["log", "meal", "--at", "2015-07-17 13:30", "--name", "", "--carbs", "10", "--fat", "3.333"],
            ["log", "exercise", "--at", "2015-07-17 18:00", "--name", "Walk, \"fast\"", "--minutes", "45.5"],
            ["illness", "start", "--at", "2015-07-16 22:00"], ["illness", "stop", "--at", "2015-07-17 06:30"],
            ["stress", "start", "--at", "2015-07-17 20:00"],
        ] {
            let result = try runProcess(BuiltProducts.executable("glucobridge"), arguments + ["--store", cli.path])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        // Another program's writes, by the receiver's record keys.
        let edits: [(key: Int, set: String)] = [
            (11856, "note = 'comma, inside'"),
            (11857, "note = 'quote \"q\" and \\back\\slash / slash'"),
            (11858, "note = 'line' || char(10) || 'break'"),
            (11859, "note = 'crlf' || char(13) || char(10) || 'end'"),
            (11860, "note = 'tab' || char(9) || 'ctl' || char(1) || char(8) || char(12) || char(31) || char(127)"),
            (11861, "note = 'non-ASCII: crème brûlée 血糖 😀'"),
            (11862, "note = 'comb ,' || char(769) || ' x'"),
            (11863, "note = 'cr only' || char(13) || 'x,y'"),
            (11864, "note = CAST(X'6E756C00616674' AS TEXT)"),
            (11865, "note = CAST(X'626164FF2C78' AS TEXT)"),
            (11866, "note = 'quote\"' || char(769) || 'mark'"),
            (11867, "note = 'crlf,' || char(13) || char(10)"),
            (11868, "device_display_time = '2016-02-24T18:36:53,\"x\"'"),
            (11869, "flag = 'HI', mgdl = 401"),
            (11870, "flag = 'LO', mgdl = 39.99999999"),
            (11871, "mgdl = 0.0000001"),
            (11872, "mgdl = 180.0000001, trend = 'NotComputable'"),
            (11873, "mgdl = 999.9999999, trend = 'RateOutOfRange'"),
            (11874, "mgdl = 0.05, trend = NULL"),
            (11875, "mgdl = 123.456789012"),
            (11876, "mgdl = 0.9, note = 'x'"),
            (11877, "time = '2015-07-18 02:03:16.499', device_display_time = NULL"),
            (11878, "time = '2015-07-18 02:08:16.500'"),
        ]
        _ = try cli.sqlite3(edits.map { "UPDATE glucose SET \($0.set) WHERE device_record_key = 'egv:\($0.key)';" }.joined(separator: "\n"))
        return cli
    }

    /// What `glucobridge export` writes on stdout with `arguments`, as bytes.
    func export(_ arguments: [String], _ path: String) throws -> [UInt8] {
        let result = try runProcess(BuiltProducts.executable("glucobridge"), ["export"] + arguments + ["--store", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return Array(result.stdout.utf8)
    }

    func assertBytes(_ arguments: [String], _ path: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = try export(arguments, path)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), expected, "\(arguments)", file: file, line: line)
        XCTAssertEqual(bytes, Array(expected.utf8), "\(arguments): byte for byte", file: file, line: line)
    }

    func testGlucoseInEveryFormat() throws {
        let cli = try edgeStore()
        try assertBytes(["--format", "csv"], cli.path, Golden.glucoseCSV)
        try assertBytes(["--format", "json", "--from", "2015-07-17T11:00:00Z", "--to", "2015-07-17T14:00:00Z"], cli.path, Golden.fingersticksJSON)
        try assertBytes(["--format", "json", "--from", "2015-07-18T00:18:00Z", "--to", "2015-07-18T01:19:00Z"], cli.path, Golden.textJSON)
        try assertBytes(
            ["--format", "nightscout", "--from", "2015-07-17T11:00:00Z", "--to", "2015-07-17T14:00:00Z"], cli.path, Golden.fingersticksNightscout)
        try assertBytes(
            ["--format", "nightscout", "--from", "2015-07-18T01:38:00Z", "--to", "2015-07-18T02:09:00Z"], cli.path, Golden.edgesNightscout)
    }

    func testLogsAndDaysInEveryFormat() throws {
        let cli = try edgeStore()
        try assertBytes(["--kind", "insulin", "--format", "csv"], cli.path, Golden.insulinCSV)
        try assertBytes(["--kind", "insulin", "--format", "json"], cli.path, Golden.insulinJSON)
        try assertBytes(["--kind", "insulin", "--format", "nightscout"], cli.path, Golden.insulinNightscout)
        try assertBytes(["--kind", "meal", "--format", "csv"], cli.path, Golden.mealCSV)
        try assertBytes(["--kind", "meal", "--format", "json"], cli.path, Golden.mealJSON)
        try assertBytes(["--kind", "meal", "--format", "nightscout"], cli.path, Golden.mealNightscout)
        try assertBytes(["--kind", "exercise", "--format", "csv"], cli.path, Golden.exerciseCSV)
        try assertBytes(["--kind", "exercise", "--format", "json"], cli.path, Golden.exerciseJSON)
        try assertBytes(["--kind", "exercise", "--format", "nightscout"], cli.path, Golden.exerciseNightscout)
        try assertBytes(["--kind", "illness", "--format", "csv"], cli.path, Golden.illnessCSV)
        try assertBytes(["--kind", "illness", "--format", "json"], cli.path, Golden.illnessJSON)
        try assertBytes(["--kind", "stress", "--format", "csv"], cli.path, Golden.stressCSV)
        try assertBytes(["--kind", "stress", "--format", "json"], cli.path, Golden.stressJSON)
        try assertBytes(["--kind", "days", "--format", "csv"], cli.path, Golden.daysCSV)
        try assertBytes(["--kind", "days", "--format", "json"], cli.path, Golden.daysJSON)
    }

    /// A reader that is gone before the export is written: an error that says so, status 1.
    func testClosedOutput() throws {
        let cli = try edgeStore()
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        close(ends[0])
        let errors = cli.folder.appendingPathComponent("export.err")
        XCTAssertTrue(FileManager.default.createFile(atPath: errors.path, contents: nil))
        let process = Process()
        process.executableURL = BuiltProducts.executable("glucobridge")
        process.arguments = ["export", "--format", "json", "--store", cli.path]
        process.standardOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "not killed by SIGPIPE")
        XCTAssertEqual(process.terminationStatus, 1)
        XCTAssertEqual(
            try String(contentsOf: errors, encoding: .utf8),
            "glucobridge: the output was closed after 0 bytes (the program reading the export stopped reading); the export is incomplete\n")
    }

    func testEmptyStore() throws {
        let cli = try CLIStore(zone: "Asia/Kolkata")
        try assertBytes(["--format", "csv"], cli.path, Golden.emptyCSV)
        try assertBytes(["--format", "json"], cli.path, Golden.emptyJSON)
        try assertBytes(["--format", "nightscout"], cli.path, Golden.emptyNightscout)
    }
}

/// The expected bytes (escapes for the control characters and CR).
private enum Golden {
    static let glucoseCSV = """
        time,day,mgdl,mmol,tag,flag,kind,trend,source,record_key,device_display_time,note
        2012-02-06T01:34:00Z,2012-02-05,133,7.4,in-range,,fingerstick,,contour:7390-2336773,result:8@201202052034,2012-02-05T20:34:00,before meal; activity
        2015-05-26T15:50:00Z,2015-05-26,93,5.2,in-range,,fingerstick,,contour:7390-2336773,result:3@201505261150,2015-05-26T11:50:00,after meal; M0; T1
        2015-07-17T11:05:00Z,2015-07-17,70.2624,3.9,in-range,,fingerstick,,,,,
        2015-07-17T12:05:00Z,2015-07-17,99.7,5.5,in-range,,fingerstick,,,,,
        2015-07-17T13:05:00Z,2015-07-17,69.6,3.9,hypo-l1,,fingerstick,,,,,
        2015-07-17T13:06:08Z,2015-07-17,204.5,11.4,hyper-l1,,fingerstick,,,,,
        2015-07-17T13:07:07Z,2015-07-17,180.16,10.0,in-range,,fingerstick,,,,,
        2015-07-18T00:18:17Z,2015-07-17,79,4.4,in-range,,sensor,Flat,dexcom:SM44792675,egv:11856,2016-02-24T16:46:53,"comma, inside"
        2015-07-18T00:23:17Z,2015-07-17,88,4.9,in-range,,sensor,FortyFiveUp,dexcom:SM44792675,egv:11857,2016-02-24T16:51:53,"quote ""q"" and \\back\\slash / slash"
        2015-07-18T00:28:17Z,2015-07-17,95,5.3,in-range,,sensor,FortyFiveUp,dexcom:SM44792675,egv:11858,2016-02-24T16:56:53,"line
        break"
        2015-07-18T00:33:17Z,2015-07-17,110,6.1,in-range,,sensor,SingleUp,dexcom:SM44792675,egv:11859,2016-02-24T17:01:53,crlf\r
        end
        2015-07-18T00:38:17Z,2015-07-17,116,6.4,in-range,,sensor,FortyFiveUp,dexcom:SM44792675,egv:11860,2016-02-24T17:06:53,tab\tctl\u{1}\u{8}\u{C}\u{1F}\u{7F}
        2015-07-18T00:43:17Z,2015-07-17,130,7.2,in-range,,sensor,SingleUp,dexcom:SM44792675,egv:11861,2016-02-24T17:11:53,non-ASCII: crème brûlée 血糖 😀
        2015-07-18T00:48:17Z,2015-07-17,143,7.9,in-range,,sensor,SingleUp,dexcom:SM44792675,egv:11862,2016-02-24T17:16:53,comb ,́ x
        2015-07-18T00:53:17Z,2015-07-17,149,8.3,in-range,,sensor,SingleUp,dexcom:SM44792675,egv:11863,2016-02-24T17:21:53,"cr only\rx,y"
        2015-07-18T00:58:17Z,2015-07-17,149,8.3,in-range,,sensor,FortyFiveUp,dexcom:SM44792675,egv:11864,2016-02-24T17:26:53,nul
        2015-07-18T01:03:16Z,2015-07-17,156,8.7,in-range,,sensor,Flat,dexcom:SM44792675,egv:11865,2016-02-24T17:31:53,"bad�,x"
        2015-07-18T01:08:17Z,2015-07-17,159,8.8,in-range,,sensor,Flat,dexcom:SM44792675,egv:11866,2016-02-24T17:36:53,quote"́mark
        2015-07-18T01:13:16Z,2015-07-17,176,9.8,in-range,,sensor,FortyFiveUp,dexcom:SM44792675,egv:11867,2016-02-24T17:41:53,"crlf,\r
        "
        2015-07-18T01:18:16Z,2015-07-17,190,10.5,hyper-l1,,sensor,SingleUp,dexcom:SM44792675,egv:11868,"2016-02-24T18:36:53,""x\""",
        2015-07-18T01:23:17Z,2015-07-17,401,22.3,hyper-l1,HI,sensor,SingleUp,dexcom:SM44792675,egv:11869,2016-02-24T17:51:53,
        2015-07-18T01:28:16Z,2015-07-17,40,2.2,hyper-l1,LO,sensor,SingleUp,dexcom:SM44792675,egv:11870,2016-02-24T17:56:53,
        2015-07-18T01:33:16Z,2015-07-17,0,0.0,hyper-l1,,sensor,SingleUp,dexcom:SM44792675,egv:11871,2016-02-24T18:01:53,
        2015-07-18T01:38:16Z,2015-07-17,180,10.0,hyper-l1,,sensor,NotComputable,dexcom:SM44792675,egv:11872,2016-02-24T18:06:53,
        2015-07-18T01:43:16Z,2015-07-17,1000,55.5,hyper-l1,,sensor,RateOutOfRange,dexcom:SM44792675,egv:11873,2016-02-24T18:11:53,
        2015-07-18T01:48:16Z,2015-07-17,0.05,0.0,hyper-l1,,sensor,,dexcom:SM44792675,egv:11874,2016-02-24T18:16:53,
        2015-07-18T01:53:16Z,2015-07-17,123.456789,6.9,hyper-l1,,sensor,Flat,dexcom:SM44792675,egv:11875,2016-02-24T18:21:53,
        2015-07-18T01:58:16Z,2015-07-17,0.9,0.0,hyper-l1,,sensor,Flat,dexcom:SM44792675,egv:11876,2016-02-24T18:26:53,x
        2015-07-18T02:03:16Z,2015-07-17,230,12.8,hyper-l1,,sensor,Flat,dexcom:SM44792675,egv:11877,,
        2015-07-18T02:08:17Z,2015-07-17,224,12.4,hyper-l1,,sensor,Flat,dexcom:SM44792675,egv:11878,2016-02-24T18:36:53,
        2025-03-13T20:43:09Z,2025-03-13,500,27.8,hyper-l2,HI,sensor,SingleUp,freestyle:JCMV000-S0001,arresult:1200,2025-03-13T20:41:09,
        2025-03-14T06:57:12Z,2025-03-14,96,5.3,in-range,,fingerstick,,freestyle:JCMV000-S0001,arresult:1202,2025-03-14T07:55:12,
        2025-03-14T07:03:05Z,2025-03-14,64,3.6,hypo-l1,,sensor,,freestyle:JCMV000-S0001,history:407,2025-03-14T08:01:05,
        2025-03-14T07:18:05Z,2025-03-14,38,2.1,hypo-l2,LO,sensor,,freestyle:JCMV000-S0001,history:408,2025-03-14T08:16:05,
        2025-03-14T07:33:05Z,2025-03-14,131,7.3,in-range,,sensor,,freestyle:JCMV000-S0001,history:409,2025-03-14T08:31:05,
        2025-03-14T08:03:05Z,2025-03-14,118,6.5,in-range,,sensor,,freestyle:JCMV000-S0001,history:411,2025-03-14T09:01:05,
        2025-03-14T08:14:40Z,2025-03-14,115,6.4,in-range,,sensor,FortyFiveUp,freestyle:JCMV000-S0001,arresult:1205,2025-03-14T09:12:40,
        2025-03-14T08:18:05Z,2025-03-14,112,6.2,in-range,,sensor,,freestyle:JCMV000-S0001,history:412,2025-03-14T09:16:05,

        """
    static let fingersticksJSON = """
        [
          {
            "day" : "2015-07-17",
            "kind" : "fingerstick",
            "mgdl" : 70.2624,
            "mmol" : 3.9,
            "tag" : "in-range",
            "time" : "2015-07-17T11:05:00Z"
          },
          {
            "day" : "2015-07-17",
            "kind" : "fingerstick",
            "mgdl" : 99.7,
            "mmol" : 5.5,
            "tag" : "in-range",
            "time" : "2015-07-17T12:05:00Z"
          },
          {
            "day" : "2015-07-17",
            "kind" : "fingerstick",
            "mgdl" : 69.6,
            "mmol" : 3.9,
            "tag" : "hypo-l1",
            "time" : "2015-07-17T13:05:00Z"
          },
          {
            "day" : "2015-07-17",
            "kind" : "fingerstick",
            "mgdl" : 204.5,
            "mmol" : 11.4,
            "tag" : "hyper-l1",
            "time" : "2015-07-17T13:06:08Z"
          },
          {
            "day" : "2015-07-17",
            "kind" : "fingerstick",
            "mgdl" : 180.16,
            "mmol" : 10,
            "tag" : "in-range",
            "time" : "2015-07-17T13:07:07Z"
          }
        ]

        """
    static let textJSON = """
        [
          {
            "day" : "2015-07-17",
            "device_display_time" : "2016-02-24T16:46:53",
            "kind" : "sensor",
            "mgdl" : 79,
            "mmol" : 4.4,
            "note" : "comma, inside",
            "record_key" : "egv:11856",
            "source" : "dexcom:SM44792675",
            "tag" : "in-range",
            "time" : "2015-07-18T00:18:17Z",
            "trend" : "Flat"
          },
          {
            "day" : "2015-07-17",
            "device_display_time" : "2016-02-24T16:51:53",
            "kind" : "sensor",
            "mgdl" : 88,
            "mmol" : 4.9,
            "note" : "quote \\"q\\" and \\\\back\\\\slash / slash",
            "record_key" : "egv:11857",
            "source" : "dexcom:SM44792675",
            "tag" : "in-range",
            "time" : "2015-07-18T00:23:17Z",
            "trend" : "FortyFiveUp"
          },
          {
            "day" : "2015-07-17",
            "device_display_time" : "2016-02-24T16:56:53",
            "kind" : "sensor",
            "mgdl" : 95,
            "mmol" : 5.3,
            "note" : "line\\nbreak",
            "record_key" : "egv:11858",
            "source" : "dexcom:SM44792675",
            "tag" : "in-range",
            "time" : "2015-07-18T00:28:17Z",
            "trend" : "FortyFiveUp"
          },
          {
            "day" : "2015-07-17",
            "device_display_time" : "2016-02-24T17:01:53",
            "kind" : "sensor",
            "mgdl" : 110,
            "mmol" : 6.1,
            "note" : "crlf\\r\\nend",
            "record_key" : "egv:11859",
            "source" : "dexcom:SM44792675",
            "tag" : "in-range",
            "time" : "2015-07-18T00:33:17Z",
            "trend" : "SingleUp"
          },
          {
            "day" : "2015-07-17",
            "device_display_time" : "2016-02-24T17:06:53",
            "kind" : "sensor",
            "mgdl" : 116,
            "mmol" : 6.4,
            "note" : "tab\\tctl\\u0001\\b\\f\\u001f\u{7F}",
            "record_key" : "egv:11860",
            "source" : "dexcom:SM44792675",
            "tag" : "in-range",
            "time" : "2015-07-18T00:38:17Z",
            "trend" : "FortyFiveUp"
          },
          {
            "day" : "2015-07-17",
            "device_display_time" : "2016-02-24T17:11:53",
            "kind" : "sensor",
            "mgdl" : 130,
            "mmol" : 7.2,
            "note" : "non-ASCII: crème brûlée 血糖 😀",
            "record_key" : "egv:11861",
            "source" : "dexcom:SM44792675",
            "tag" : "in-range",
            "time" : "2015-07-18T00:43:17Z",
            "trend" : "SingleUp"
          },
          {
            "day" : "2015-07-17",
            "device_display_time" : "2016-02-24T17:16:53",
            "kind" : "sensor",
            "mgdl" : 143,
            "mmol" : 7.9,
            "note" : "comb ,́ x",
            "record_key" : "egv:11862",
            "source" : "dexcom:SM44792675",
            "tag" : "in-range",
            "time" : "2015-07-18T00:48:17Z",
            "trend" : "SingleUp"
          },
          {
            "day" : "2015-07-17",
            "device_display_time" : "2016-02-24T17:21:53",
            "kind" : "sensor",
            "mgdl" : 149,
            "mmol" : 8.3,
            "note" : "cr only\\rx,y",
            "record_key" : "egv:11863",
            "source" : "dexcom:SM44792675",
            "tag" : "in-range",
            "time" : "2015-07-18T00:53:17Z",
            "trend" : "SingleUp"
          },
          {
            "day" : "2015-07-17",
            "device_display_time" : "2016-02-24T17:26:53",
            "kind" : "sensor",
            "mgdl" : 149,
            "mmol" : 8.3,
            "note" : "nul",
            "record_key" : "egv:11864",
            "source" : "dexcom:SM44792675",
            "tag" : "in-range",
            "time" : "2015-07-18T00:58:17Z",
            "trend" : "FortyFiveUp"
          },
          {
            "day" : "2015-07-17",
            "device_display_time" : "2016-02-24T17:31:53",
            "kind" : "sensor",
            "mgdl" : 156,
            "mmol" : 8.7,
            "note" : "bad�,x",
            "record_key" : "egv:11865",
            "source" : "dexcom:SM44792675",
            "tag" : "in-range",
            "time" : "2015-07-18T01:03:16Z",
            "trend" : "Flat"
          },
          {
            "day" : "2015-07-17",
            "device_display_time" : "2016-02-24T17:36:53",
            "kind" : "sensor",
            "mgdl" : 159,
            "mmol" : 8.8,
            "note" : "quote\\"́mark",
            "record_key" : "egv:11866",
            "source" : "dexcom:SM44792675",
            "tag" : "in-range",
            "time" : "2015-07-18T01:08:17Z",
            "trend" : "Flat"
          },
          {
            "day" : "2015-07-17",
            "device_display_time" : "2016-02-24T17:41:53",
            "kind" : "sensor",
            "mgdl" : 176,
            "mmol" : 9.8,
            "note" : "crlf,\\r\\n",
            "record_key" : "egv:11867",
            "source" : "dexcom:SM44792675",
            "tag" : "in-range",
            "time" : "2015-07-18T01:13:16Z",
            "trend" : "FortyFiveUp"
          },
          {
            "day" : "2015-07-17",
            "device_display_time" : "2016-02-24T18:36:53,\\"x\\"",
            "kind" : "sensor",
            "mgdl" : 190,
            "mmol" : 10.5,
            "record_key" : "egv:11868",
            "source" : "dexcom:SM44792675",
            "tag" : "hyper-l1",
            "time" : "2015-07-18T01:18:16Z",
            "trend" : "SingleUp"
          }
        ]

        """
    static let fingersticksNightscout = """
        [
          {
            "date" : 1437131100000,
            "dateString" : "2015-07-17T11:05:00.000Z",
            "device" : "glucobridge",
            "mbg" : 70,
            "type" : "mbg"
          },
          {
            "date" : 1437134700000,
            "dateString" : "2015-07-17T12:05:00.000Z",
            "device" : "glucobridge",
            "mbg" : 100,
            "type" : "mbg"
          },
          {
            "date" : 1437138300000,
            "dateString" : "2015-07-17T13:05:00.000Z",
            "device" : "glucobridge",
            "mbg" : 70,
            "type" : "mbg"
          },
          {
            "date" : 1437138367500,
            "dateString" : "2015-07-17T13:06:07.500Z",
            "device" : "glucobridge",
            "mbg" : 205,
            "type" : "mbg"
          },
          {
            "date" : 1437138427123,
            "dateString" : "2015-07-17T13:07:07.123Z",
            "device" : "glucobridge",
            "mbg" : 180,
            "type" : "mbg"
          }
        ]

        """
    static let edgesNightscout = """
        [
          {
            "date" : 1437183496000,
            "dateString" : "2015-07-18T01:38:16.000Z",
            "device" : "glucobridge dexcom:SM44792675",
            "direction" : "NOT COMPUTABLE",
            "sgv" : 180,
            "type" : "sgv"
          },
          {
            "date" : 1437183796000,
            "dateString" : "2015-07-18T01:43:16.000Z",
            "device" : "glucobridge dexcom:SM44792675",
            "direction" : "RATE OUT OF RANGE",
            "sgv" : 1000,
            "type" : "sgv"
          },
          {
            "date" : 1437184096000,
            "dateString" : "2015-07-18T01:48:16.000Z",
            "device" : "glucobridge dexcom:SM44792675",
            "direction" : "NONE",
            "sgv" : 0,
            "type" : "sgv"
          },
          {
            "date" : 1437184396000,
            "dateString" : "2015-07-18T01:53:16.000Z",
            "device" : "glucobridge dexcom:SM44792675",
            "direction" : "Flat",
            "sgv" : 123,
            "type" : "sgv"
          },
          {
            "date" : 1437184696000,
            "dateString" : "2015-07-18T01:58:16.000Z",
            "device" : "glucobridge dexcom:SM44792675",
            "direction" : "Flat",
            "sgv" : 1,
            "type" : "sgv"
          },
          {
            "date" : 1437184996499,
            "dateString" : "2015-07-18T02:03:16.499Z",
            "device" : "glucobridge dexcom:SM44792675",
            "direction" : "Flat",
            "sgv" : 230,
            "type" : "sgv"
          },
          {
            "date" : 1437185296500,
            "dateString" : "2015-07-18T02:08:16.500Z",
            "device" : "glucobridge dexcom:SM44792675",
            "direction" : "Flat",
            "sgv" : 224,
            "type" : "sgv"
          }
        ]

        """
    static let insulinCSV = """
        time,day,units,id
        2015-07-17T16:25:00Z,2015-07-17,4.5,1

        """
    static let insulinJSON = """
        [
          {
            "day" : "2015-07-17",
            "id" : 1,
            "time" : "2015-07-17T16:25:00Z",
            "units" : 4.5
          }
        ]

        """
    static let insulinNightscout = """
        [
          {
            "created_at" : "2015-07-17T16:25:00.000Z",
            "enteredBy" : "glucobridge",
            "eventType" : "Correction Bolus",
            "insulin" : 4.5
          }
        ]

        """
    static let mealCSV = """
        time,day,name,carbs_g,protein_g,fat_g,favourite,id
        2015-07-17T16:30:00Z,2015-07-17,"Oatmeal, ""warm""
        with milk — crème",45.3,8,0,false,1
        2015-07-17T17:30:00Z,2015-07-17,,10,0,3.3,false,2

        """
    static let mealJSON = """
        [
          {
            "carbs_g" : 45.3,
            "day" : "2015-07-17",
            "fat_g" : 0,
            "favourite" : false,
            "id" : 1,
            "name" : "Oatmeal, \\"warm\\"\\nwith milk — crème",
            "protein_g" : 8,
            "time" : "2015-07-17T16:30:00Z"
          },
          {
            "carbs_g" : 10,
            "day" : "2015-07-17",
            "fat_g" : 3.3,
            "favourite" : false,
            "id" : 2,
            "protein_g" : 0,
            "time" : "2015-07-17T17:30:00Z"
          }
        ]

        """
    static let mealNightscout = """
        [
          {
            "carbs" : 45.3,
            "created_at" : "2015-07-17T16:30:00.000Z",
            "enteredBy" : "glucobridge",
            "eventType" : "Carb Correction",
            "notes" : "Oatmeal, \\"warm\\"\\nwith milk — crème",
            "protein" : 8
          },
          {
            "carbs" : 10,
            "created_at" : "2015-07-17T17:30:00.000Z",
            "enteredBy" : "glucobridge",
            "eventType" : "Carb Correction",
            "fat" : 3.3
          }
        ]

        """
    static let exerciseCSV = """
        start,day,name,duration_min,intensity,source,record_key,distance_m,energy_kj
        2015-07-17T22:00:00Z,2015-07-17,"Walk, ""fast\""",45.5,moderate,,,,

        """
    static let exerciseJSON = """
        [
          {
            "day" : "2015-07-17",
            "duration_min" : 45.5,
            "intensity" : "moderate",
            "name" : "Walk, \\"fast\\"",
            "start" : "2015-07-17T22:00:00Z"
          }
        ]

        """
    static let exerciseNightscout = """
        [
          {
            "created_at" : "2015-07-17T22:00:00.000Z",
            "duration" : 45.5,
            "enteredBy" : "glucobridge",
            "eventType" : "Exercise",
            "notes" : "Walk, \\"fast\\" (moderate)"
          }
        ]

        """
    static let illnessCSV = """
        start,end,day,duration_min,open,id
        2015-07-17T02:00:00Z,2015-07-17T10:30:00Z,2015-07-16,510,false,1

        """
    static let illnessJSON = """
        [
          {
            "day" : "2015-07-16",
            "duration_min" : 510,
            "end" : "2015-07-17T10:30:00Z",
            "id" : 1,
            "open" : false,
            "start" : "2015-07-17T02:00:00Z"
          }
        ]

        """
    static let stressCSV = """
        start,end,day,duration_min,open,id
        2015-07-18T00:00:00Z,,2015-07-17,,true,1

        """
    static let stressJSON = """
        [
          {
            "day" : "2015-07-17",
            "id" : 1,
            "open" : true,
            "start" : "2015-07-18T00:00:00Z"
          }
        ]

        """
    static let daysCSV = """
        day,readings,low_mgdl,average_mgdl,high_mgdl,time_in_range_percent,hypo,hyper,exercise,stress,illness,favourite,carbs_g,protein_g,fat_g
        2012-02-05,1,133,133,133,100,false,false,false,false,false,false,0,0,0
        2015-05-26,1,93,93,93,100,false,false,false,false,false,false,0,0,0
        2015-07-16,0,,,,,false,false,false,false,true,false,0,0,0
        2015-07-17,28,0,163,1000,53.6,true,true,true,true,true,false,55.3,8,3.3
        2025-03-13,1,500,500,500,0,false,true,false,true,false,false,0,0,0
        2025-03-14,7,38,96.3,131,71.4,true,false,false,true,false,false,0,0,0

        """
    static let daysJSON = """
        [
          {
            "average_mgdl" : 133,
            "carbs_g" : 0,
            "day" : "2012-02-05",
            "exercise" : false,
            "fat_g" : 0,
            "favourite" : false,
            "high_mgdl" : 133,
            "hyper" : false,
            "hypo" : false,
            "illness" : false,
            "low_mgdl" : 133,
            "protein_g" : 0,
            "readings" : 1,
            "stress" : false,
            "time_in_range_percent" : 100
          },
          {
            "average_mgdl" : 93,
            "carbs_g" : 0,
            "day" : "2015-05-26",
            "exercise" : false,
            "fat_g" : 0,
            "favourite" : false,
            "high_mgdl" : 93,
            "hyper" : false,
            "hypo" : false,
            "illness" : false,
            "low_mgdl" : 93,
            "protein_g" : 0,
            "readings" : 1,
            "stress" : false,
            "time_in_range_percent" : 100
          },
          {
            "carbs_g" : 0,
            "day" : "2015-07-16",
            "exercise" : false,
            "fat_g" : 0,
            "favourite" : false,
            "hyper" : false,
            "hypo" : false,
            "illness" : true,
            "protein_g" : 0,
            "readings" : 0,
            "stress" : false
          },
          {
            "average_mgdl" : 163,
            "carbs_g" : 55.3,
            "day" : "2015-07-17",
            "exercise" : true,
            "fat_g" : 3.3,
            "favourite" : false,
            "high_mgdl" : 1000,
            "hyper" : true,
            "hypo" : true,
            "illness" : true,
            "low_mgdl" : 0,
            "protein_g" : 8,
            "readings" : 28,
            "stress" : true,
            "time_in_range_percent" : 53.6
          },
          {
            "average_mgdl" : 500,
            "carbs_g" : 0,
            "day" : "2025-03-13",
            "exercise" : false,
            "fat_g" : 0,
            "favourite" : false,
            "high_mgdl" : 500,
            "hyper" : true,
            "hypo" : false,
            "illness" : false,
            "low_mgdl" : 500,
            "protein_g" : 0,
            "readings" : 1,
            "stress" : true,
            "time_in_range_percent" : 0
          },
          {
            "average_mgdl" : 96.3,
            "carbs_g" : 0,
            "day" : "2025-03-14",
            "exercise" : false,
            "fat_g" : 0,
            "favourite" : false,
            "high_mgdl" : 131,
            "hyper" : false,
            "hypo" : true,
            "illness" : false,
            "low_mgdl" : 38,
            "protein_g" : 0,
            "readings" : 7,
            "stress" : true,
            "time_in_range_percent" : 71.4
          }
        ]

        """
    static let emptyCSV = """
        time,day,mgdl,mmol,tag,flag,kind,trend,source,record_key,device_display_time,note

        """
    static let emptyJSON = """
        [

        ]

        """
    static let emptyNightscout = """
        [

        ]

        """
}
