import Foundation
import Model
import Transport

/// A Huami band (Mi Band 2–6, Amazfit Bip, GTS, GTR; the protocol Gadgetbridge calls Huami, not
/// Zepp OS): its per-minute activity history, read through the band's own service 0xFEE0.
///
/// Download (conversation only): authenticate with the band's auth key (`HuamiAuthKeys`: asked
/// for a random number, the band gets it back AES-128 encrypted with the key, which is never
/// sent), then fetch the activity from the minute after the last one the store holds (from
/// 2000-01-01 the first time), fetch after fetch until the band has nothing newer. Each fetch:
/// the start command with the instant in UTC (zone byte 0), the band's answer with the byte
/// count and the first sample's wall time and zone, the data packets (byte 0 a counter), the
/// end, and an acknowledgement that asks the band to keep its data. Listening to another
/// program's capture, the same answers and packets are read from the notifications.
///
/// Then its workouts: one sports summary a fetch (type 0x05), from the minute after the last
/// workout stored (cursor `workouts`), each an Exercise log dated by the fetch answer's start
/// time, with the summary's length, sport, distance, calories and average heart rate; a summary
/// cut by a lost link is left out whole. After each summary, the workout's sports detail (type
/// 0x06, from the workout's start): the beat rates it holds grade the workout; a detail cut or
/// refused leaves the workout as its summary gives it.
///
/// Each sample is one minute from the fetch's start instant: steps become the minute's step
/// cadence (steps/min), the heart rate its heart rate (0 and 255 mean none), and the band's kind
/// and intensity bytes the minute's device values, as sent. The 8-byte form's last four bytes
/// (sleep) are not stored.
/// A fetch cut by a lost link keeps its whole samples only; the cursor (`activity`: the UTC
/// minute number of the last sample) then makes the next session start after them.
package final class HuamiBandDriver: BLEDeviceDriver {
    package static let family: DeviceFamily = "huami"
    package static let service = BLEService.huami
    package static let capabilities: DeviceCapabilities = [.activity, .storedHistory, .liveValues, .passiveDecode]
    package static let summary =
        "Mi Band 2–6, Amazfit Bip, GTS, GTR: per-minute steps and heart rate, and its workouts (summary and detail) as Exercise logs, from after the last stored (needs the band's auth key)"
    /// The cursor's stream.
    package static let stream: RecordStream = "activity"
    /// The workouts' cursor stream: the start minute of the last workout stored.
    package static let workoutStream: RecordStream = "workouts"
    /// Sports summary fetches in one session at most.
    package static let maximumWorkouts = 100
    /// The first fetch asks from here: the band answers with its oldest sample.
    package static let firstFetch = Date(timeIntervalSince1970: 946_684_800)
    /// GAP Device Name (0x2A00).
    static let deviceName = BluetoothUUID(0x2A00)
    /// Fetches in one session at most (a band sends a day or so per fetch).
    package static let maximumFetches = 400

    private var fetchControl: GATTCharacteristic?
    private var activityData: GATTCharacteristic?
    private var auth: GATTCharacteristic?
    private var form = HuamiSampleForm.short
    /// `Mi Smart Band 5 (C8:0F:10:00:00:05)`, for messages.
    private var bandName = "Huami band"
    private var log = HuamiFetchLog()
    private var cursor: Int64?
    /// The minute (UTC, counted from 1970) of the last workout stored.
    private var workoutCursor: Int64?
    /// The type of the fetch the last start command asked for.
    private var fetchType = HuamiFetchCommand.activityType
    /// Whether the band refused a sports detail fetch this session (then none is asked again).
    private var detailsRefused = false
    /// Whether glucobridge writes the commands (else it listens: the fetch types are not seen).
    private var conversing = false
    private var problems: [BLEDriverError] = []
    private var notes: [String] = []

    package init(service: GATTService) {
        fetchControl = service.characteristic(HuamiCharacteristic.fetchControl.uuid)
        activityData = service.characteristic(HuamiCharacteristic.activityData.uuid)
    }

    package var handles: Set<UInt16> { Set([fetchControl?.valueHandle, activityData?.valueHandle].compactMap { $0 }) }

    package func start(on link: BLELink) throws(BLEDriverError) {
        // Gadgetbridge finds the fetch characteristics in 0xFEE0 and authentication in 0xFEE1;
        // any of them elsewhere on the band is taken too.
        auth = link.database.characteristic(HuamiCharacteristic.auth.uuid)
        fetchControl = fetchControl ?? link.database.characteristic(HuamiCharacteristic.fetchControl.uuid)
        activityData = activityData ?? link.database.characteristic(HuamiCharacteristic.activityData.uuid)
        for characteristic in [auth, fetchControl, activityData].compactMap({ $0 }) { link.claim(characteristic.valueHandle, by: self) }
        conversing = link.mayWrite
        // The model decides the sample form: the GAP Device Name says it (a capture may hold no
        // advertised name), else the advertised name.
        var name = link.identity.peer.name.flatMap { $0.isEmpty ? nil : $0 }
        if let deviceName = link.database.characteristic(Self.deviceName), deviceName.properties.contains(.read),
            let value = try link.readOptional(deviceName, name: "Device Name"), let text = DeviceInformation.decode(value.bytes)
        {
            name = text
        }
        form = HuamiSampleForm.forBand(named: name)
        bandName = "\(name ?? "Huami band") (\(link.identity.peer.address))"
        notes.append("Huami band \"\(name ?? "")\": \(form.rawValue)-byte activity samples")
        for characteristic in [auth, fetchControl, activityData].compactMap({ $0 }) where characteristic.properties.contains(.notify) {
            try link.subscribe(characteristic, to: .notifications)
        }
    }

    package func download(on link: BLELink) throws(BLEDriverError) {
        guard let auth, let fetchControl, activityData != nil else {
            notes.append("the band lacks the \(auth == nil ? "authentication" : "fetch") characteristic: no activity was fetched")
            return
        }
        try authenticate(link, auth)
        cursor = link.cursor(family: DeviceFamily.bluetoothActivity, stream: Self.stream)
        workoutCursor = link.cursor(family: DeviceFamily.bluetoothActivity, stream: Self.workoutStream)
        try fetchActivity(link, fetchControl)
        try fetchWorkouts(link, fetchControl)
    }

    /// The per-minute history from the minute after the cursor, fetch after fetch.
    private func fetchActivity(_ link: BLELink, _ fetchControl: GATTCharacteristic) throws(BLEDriverError) {
        var since = cursor.map { Date(timeIntervalSince1970: TimeInterval(($0 + 1) * 60)) } ?? Self.firstFetch
        fetchType = HuamiFetchCommand.activityType
        for _ in 0..<Self.maximumFetches {
            let fetched = log.fetches.count
            try send(.start(type: fetchType, since: HuamiTime(since, quarterHours: 0)), link, fetchControl)
            guard case .started(let count, _) = try answer(link, fetchControl, to: "the start of a fetch") else { return }
            if count == 0 { return }
            try send(.fetch, link, fetchControl)
            guard case .finished = try answer(link, fetchControl, to: "the fetch") else { return }
            try send(.acknowledge, link, fetchControl)
            guard log.fetches.count > fetched, let last = log.fetches.last, last.problem == nil, let end = last.end, end > since else { return }
            since = end
        }
        notes.append("the band still had data after \(Self.maximumFetches) fetches; the next session goes on from there")
    }

    /// The band's workouts from the minute after the last one stored: one sports summary a
    /// fetch, each fetch from the minute after the workout before. A band that refuses the
    /// fetch type keeps no workouts (a note, not a problem).
    private func fetchWorkouts(_ link: BLELink, _ fetchControl: GATTCharacteristic) throws(BLEDriverError) {
        var since = workoutCursor.map { Date(timeIntervalSince1970: TimeInterval(($0 + 1) * 60)) } ?? Self.firstFetch
        fetchType = HuamiFetchCommand.sportsSummaryType
        defer { fetchType = HuamiFetchCommand.activityType }
        for _ in 0..<Self.maximumWorkouts {
            let fetched = log.fetches.count
            try send(.start(type: fetchType, since: HuamiTime(since, quarterHours: 0)), link, fetchControl)
            guard
                case .started(let count, let start) = try answer(
                    link, fetchControl, to: "the start of a sports summary fetch", refusal: "it keeps no workouts")
            else { return }
            if count == 0 { return }
            try send(.fetch, link, fetchControl)
            guard case .finished = try answer(link, fetchControl, to: "the sports summary fetch") else { return }
            try send(.acknowledge, link, fetchControl)
            guard log.fetches.count > fetched, let summary = log.fetches.last, summary.problem == nil, start.instant >= since else { return }
            if (try? HuamiWorkoutSummary.decode(summary.data)) != nil, !(try fetchDetail(of: start, link, fetchControl)) { return }
            since = start.instant.addingTimeInterval(60)
        }
        notes.append("the band still had workouts after \(Self.maximumWorkouts) fetches; the next session goes on from there")
    }

    /// The sports detail of the workout that started at `start` (the summary fetch's answer).
    /// Returns whether the session can go on: it does after a detail read whole, none for the
    /// workout, or a refusal of the fetch type (a note; not asked again this session), not
    /// after a band stopped answering.
    private func fetchDetail(of start: HuamiTime, _ link: BLELink, _ fetchControl: GATTCharacteristic) throws(BLEDriverError) -> Bool {
        fetchType = HuamiFetchCommand.sportsDetailType
        defer { fetchType = HuamiFetchCommand.sportsSummaryType }
        guard !detailsRefused else { return true }
        let problemsBefore = problems.count
        try send(.start(type: fetchType, since: start), link, fetchControl)
        guard
            case .started(let count, _) = try answer(
                link, fetchControl, to: "the start of a sports detail fetch", refusal: "it keeps no workout details")
        else {
            detailsRefused = problems.count == problemsBefore
            return detailsRefused
        }
        if count == 0 { return true }
        try send(.fetch, link, fetchControl)
        guard case .finished = try answer(link, fetchControl, to: "the sports detail fetch") else { return false }
        try send(.acknowledge, link, fetchControl)
        return true
    }

    package func take(_ notification: GATTNotification) {
        if notification.handle == activityData?.valueHandle {
            log.packet(notification.value)
        } else if notification.handle == fetchControl?.valueHandle {
            do {
                log.answer(try HuamiFetchAnswer.decode(notification.value), form: form, type: conversing ? fetchType : nil)
            } catch {
                problems.append(.huami(error))
            }
        } else if notification.handle == auth?.valueHandle {
            if case .verdict(let status)? = try? HuamiAuthMessage.decodeAnswer(notification.value) {
                notes.append(status == 0x01 ? "the capture holds a successful authentication" : "the band refused the authentication in the capture")
            }
        }
    }

    package func report(identity: BLEDeviceIdentity) -> DriverDownload {
        var log = self.log
        log.cut(form: form)
        var samples: [ActivitySample] = []
        var events = EventCounter()
        var notes = self.notes
        var problems = self.problems
        var last: Int64?
        var workouts: [LoggedWorkout] = []
        var lastWorkout: Int64?
        for fetch in log.fetches {
            if let problem = fetch.problem { problems.append(.huami(problem)) }
            notes.append(fetch.summary)
            if fetch.type == HuamiFetchCommand.sportsDetailType {
                if let index = workouts.lastIndex(where: { $0.start == fetch.startInstant }) {
                    workouts[index].heartRates = heartRates(fetch, of: workouts[index], events: &events, problems: &problems)
                }
                continue
            }
            if fetch.type == HuamiFetchCommand.sportsSummaryType {
                if let workout = workout(fetch, events: &events, problems: &problems) {
                    workouts.append(workout.workout)
                    lastWorkout = max(lastWorkout ?? workout.minute, workout.minute)
                }
                continue
            }
            for (offset, sample) in fetch.samples.enumerated() {
                let minute = CivilDate.floorDiv(Int64(fetch.startInstant.timeIntervalSince1970.rounded(.down)), 60) + Int64(offset)
                if let cursor, minute <= cursor {
                    events.count("minute-already-stored")
                    continue
                }
                if sample.beatsPerMinute == nil { events.count("no-heart-rate") }
                samples.append(
                    ActivitySample(
                        time: Date(timeIntervalSince1970: TimeInterval(minute * 60)), sensor: .heartRateBand,
                        heartRate: sample.beatsPerMinute.map(Double.init), cadence: Double(sample.steps),
                        device: DeviceMinuteValues(kind: Int(sample.kind), intensity: Int(sample.intensity))))
                last = max(last ?? minute, minute)
            }
        }
        if log.strayPackets > 0 {
            notes.append("\(log.strayPackets) activity data packet\(log.strayPackets == 1 ? "" : "s") outside any fetch were left out")
        }
        var cursors = RecordCursors()
        if let last { cursors.raise(Self.stream, to: last) }
        if let lastWorkout { cursors.raise(Self.workoutStream, to: lastWorkout) }
        return DriverDownload(
            family: Self.family, service: Self.service, samples: samples, workouts: workouts, events: events.events, problems: problems,
            notes: notes, cursors: cursors)
    }

    /// The workout a sports summary fetch holds, dated by the fetch answer's start time (the
    /// band's wall time with its zone); nil when the fetch was cut, or its summary does not
    /// decode (a problem), or the workout is stored already.
    private func workout(
        _ fetch: HuamiFetchLog.Fetch, events: inout EventCounter, problems: inout [BLEDriverError]
    ) -> (workout: LoggedWorkout, minute: Int64)? {
        guard fetch.isWhole else {
            events.count("workout-cut")
            return nil
        }
        let summary: HuamiWorkoutSummary
        do {
            summary = try HuamiWorkoutSummary.decode(fetch.data)
        } catch {
            problems.append(.huami(error))
            return nil
        }
        guard let minute = ActivityMinute.number(of: fetch.startInstant) else { return nil }
        if let workoutCursor, minute <= workoutCursor {
            events.count("workout-already-stored")
            return nil
        }
        let workout = LoggedWorkout(
            start: fetch.startInstant, elapsed: summary.elapsed, kind: summary.kind,
            distance: summary.distance > 0 ? Double(summary.distance) : nil,
            energy: summary.calories > 0 ? Double(summary.calories) * LoggedWorkout.kilojoulesPerKilocalorie : nil,
            averageHeartRate: summary.averageHeartRate > 0 ? Double(summary.averageHeartRate) : nil,
            recordKey: "workout:" + CivilDate.wallClock(minute * 60).dropLast(3) + "Z")
        return (workout, minute)
    }

    /// The beat rates a sports detail fetch holds for `workout`: those inside the workout and
    /// within 30–220 bpm (as minutes' are); none when the fetch was cut (the workout is kept
    /// without them) or does not decode (a problem).
    private func heartRates(
        _ fetch: HuamiFetchLog.Fetch, of workout: LoggedWorkout, events: inout EventCounter, problems: inout [BLEDriverError]
    ) -> [LoggedWorkout.HeartRate] {
        guard fetch.isWhole else {
            events.count("workout-detail-cut")
            return []
        }
        let detail: HuamiWorkoutDetail
        do {
            detail = try HuamiWorkoutDetail.decode(fetch.data)
        } catch {
            problems.append(.huami(error))
            return []
        }
        var rates: [LoggedWorkout.HeartRate] = []
        for (second, rate) in detail.heartRates {
            guard TimeInterval(second) <= workout.elapsed, (30...220).contains(rate) else {
                events.count("detail-heart-rate-left-out")
                continue
            }
            rates.append(LoggedWorkout.HeartRate(time: workout.start.addingTimeInterval(TimeInterval(second)), beatsPerMinute: Double(rate)))
        }
        return rates
    }

    private func authenticate(_ link: BLELink, _ auth: GATTCharacteristic) throws(BLEDriverError) {
        let band = bandName
        let key: (key: [UInt8], origin: String)
        do {
            key = try HuamiAuthKeys.key(for: link.identity.peer.address, band: band)
        } catch {
            throw .huami(error)
        }
        try write(HuamiAuthMessage.requestRandom.bytes, link, auth)
        switch try authAnswer(link, auth, to: "the request for a random number") {
        case .random(let number):
            try write(HuamiAuthMessage.encryptedRandom(AES128(key: key.key).encrypt(number)).bytes, link, auth)
        case .randomRefused(let status):
            throw .huami(.refused(command: "the request for a random number", status: status))
        default:
            throw .huami(.unanswered(command: "the request for a random number", seconds: Int(link.answerTimeout.components.seconds)))
        }
        switch try authAnswer(link, auth, to: "the encrypted random number") {
        case .verdict(let status) where status == 0x01:
            link.note("authenticated with the auth key from \(key.origin)")
        case .verdict(let status):
            throw .huami(.authRefused(band: band, origin: key.origin, status: status))
        default:
            throw .huami(.unanswered(command: "the encrypted random number", seconds: Int(link.answerTimeout.components.seconds)))
        }
    }

    private func authAnswer(_ link: BLELink, _ auth: GATTCharacteristic, to request: String) throws(BLEDriverError) -> HuamiAuthMessage {
        let value: GATTNotification?
        do {
            value = try link.next(on: auth.valueHandle, timeout: link.answerTimeout)
        } catch {
            throw .link(error)
        }
        guard let value else { throw .huami(.unanswered(command: request, seconds: Int(link.answerTimeout.components.seconds))) }
        do {
            return try HuamiAuthMessage.decodeAnswer(value.value)
        } catch {
            throw .huami(error)
        }
    }

    private func send(_ command: HuamiFetchCommand, _ link: BLELink, _ fetchControl: GATTCharacteristic) throws(BLEDriverError) {
        try write(command.bytes, link, fetchControl)
    }

    private func write(_ bytes: [UInt8], _ link: BLELink, _ characteristic: GATTCharacteristic) throws(BLEDriverError) {
        do {
            try link.write(bytes, to: characteristic)
        } catch {
            throw .link(error)
        }
    }

    /// The band's next answer on the fetch control point (an acknowledgement of the previous
    /// fetch is taken and skipped), after the data packets that come first. A lost link ends
    /// the fetch with the whole samples received; nil when the band refused or did not answer
    /// (a problem is noted).
    private func answer(
        _ link: BLELink, _ fetchControl: GATTCharacteristic, to command: String, refusal: String? = nil
    ) throws(BLEDriverError) -> HuamiFetchAnswer? {
        while true {
            let value: GATTNotification?
            do {
                value = try link.next(on: fetchControl.valueHandle, timeout: link.answerTimeout)
            } catch {
                if case .disconnected(let why) = error {
                    log.cut(form: form, reason: "the link was lost (\(why))")
                }
                throw .link(error)
            }
            guard let value else {
                problems.append(.huami(.unanswered(command: command, seconds: Int(link.answerTimeout.components.seconds))))
                log.cut(form: form, reason: "the band stopped answering")
                return nil
            }
            let decoded: HuamiFetchAnswer
            do {
                decoded = try HuamiFetchAnswer.decode(value.value)
            } catch {
                problems.append(.huami(error))
                log.cut(form: form, reason: "the band's answer did not decode")
                return nil
            }
            log.answer(decoded, form: form, type: fetchType)
            switch decoded {
            case .acknowledged: continue
            case .failed(let code, let status) where refusal != nil:
                notes.append(
                    "the band answered \(command) with status 0x\(Hex.encode([status])) (command 0x\(Hex.encode([code]))): \(refusal ?? "")")
                return nil
            case .failed(let code, let status):
                problems.append(.huami(.refused(command: command + " (command 0x\(Hex.encode([code])))", status: status)))
                return nil
            default: return decoded
            }
        }
    }
}

/// The fetches of one session as the band's answers and packets arrive, in either mode.
public struct HuamiFetchLog {
    public struct Fetch {
        public var start: HuamiTime
        public var count: UInt32
        /// The fetch type the start command asked for (`HuamiFetchCommand.activityType`, …).
        public var type: UInt8 = HuamiFetchCommand.activityType
        public var samples: [HuamiActivitySample] = []
        /// The data of a fetch of another type than activity (a sports summary), as received.
        public var data: [UInt8] = []
        /// Whether `type` is the one asked for (else it is judged from the data at the end).
        var typeKnown = true
        public var packets = 0
        public var bytes = 0
        /// Whether the band said every packet was sent.
        public var finished = false
        public var problem: HuamiError?
        public var cutReason: String?

        /// Whether a fetch of another type than activity (a summary, a detail) arrived whole: not
        /// cut, no problem, finished, and every byte the band announced received.
        public var isWhole: Bool { cutReason == nil && problem == nil && finished && data.count == Int(count) }
        public var startInstant: Date { start.instant }
        /// The instant after the last whole sample.
        public var end: Date? { samples.isEmpty ? nil : startInstant.addingTimeInterval(TimeInterval(samples.count * 60)) }

        public var summary: String {
            if type != HuamiFetchCommand.activityType {
                var text = "fetch of type 0x\(Hex.encode([type])) from \(start) (band clock): \(bytes) of \(count) bytes"
                if let cutReason { text += "; cut: \(cutReason)" }
                return text
            }
            var text =
                "fetch from \(start) (band clock): \(samples.count) minute\(samples.count == 1 ? "" : "s") in \(packets) "
                + "packet\(packets == 1 ? "" : "s"), \(bytes) of \(count) bytes"
            if let cutReason { text += "; cut: \(cutReason), whole minutes kept" }
            return text
        }
    }

    public private(set) var fetches: [Fetch] = []
    private var open: (fetch: Fetch, stream: HuamiPacketStream)?
    public private(set) var strayPackets = 0

    public init() {}

    /// Takes an answer of the fetch control point; `type` is the type of the fetch the last
    /// start command asked for, nil when it is not known (listening to another program's
    /// capture): the fetch is then a sports summary when its data is one dated at the fetch's
    /// start (``HuamiWorkoutSummary/isSummary(_:startingAt:)``), a sports detail when it starts
    /// where the last summary's workout did, else activity.
    public mutating func answer(_ answer: HuamiFetchAnswer, form: HuamiSampleForm, type: UInt8? = HuamiFetchCommand.activityType) {
        switch answer {
        case .started(let count, let start):
            cut(form: form, reason: "the band started another fetch")
            if count > 0 {
                open = (Fetch(start: start, count: count, type: type ?? HuamiFetchCommand.activityType, typeKnown: type != nil), HuamiPacketStream())
            }
        case .finished(let crc):
            guard let (opened, stream) = open else { return }
            open = nil
            var fetch = opened
            fetch.finished = true
            if let crc, crc != HuamiCRC32.checksum(stream.data) {
                fetch.problem = .crcMismatch(carried: crc, computed: HuamiCRC32.checksum(stream.data))
                fetch.packets = stream.packets
                fetch.bytes = stream.data.count
                fetches.append(fetch)
                return
            }
            close(&fetch, stream, form: form)
        case .acknowledged, .failed:
            break
        }
    }

    public mutating func packet(_ value: [UInt8]) {
        guard open != nil else {
            strayPackets += 1
            return
        }
        open!.stream.take(value)
    }

    /// Ends an open fetch with the whole samples received so far.
    public mutating func cut(form: HuamiSampleForm, reason: String = "the session ended") {
        guard let (opened, stream) = open else { return }
        open = nil
        var fetch = opened
        fetch.cutReason = reason
        close(&fetch, stream, form: form)
    }

    private mutating func close(_ fetch: inout Fetch, _ stream: HuamiPacketStream, form: HuamiSampleForm) {
        if !fetch.typeKnown {
            if HuamiWorkoutSummary.isSummary(stream.data, startingAt: fetch.start) {
                fetch.type = HuamiFetchCommand.sportsSummaryType
            } else if fetches.last(where: { $0.type == HuamiFetchCommand.sportsSummaryType })?.start == fetch.start {
                // A fetch from the start of the workout just summarised: its detail.
                fetch.type = HuamiFetchCommand.sportsDetailType
            }
        }
        guard fetch.type == HuamiFetchCommand.activityType else {
            fetch.data = stream.data
            fetch.packets = stream.packets
            fetch.bytes = stream.data.count
            fetch.problem = stream.problem
            fetches.append(fetch)
            return
        }
        let (samples, leftOver) = HuamiActivitySample.samples(in: stream.data, form: form)
        fetch.samples = samples
        fetch.packets = stream.packets
        fetch.bytes = stream.data.count
        fetch.problem = stream.problem ?? (fetch.cutReason == nil ? leftOver : nil)
        fetches.append(fetch)
    }
}
