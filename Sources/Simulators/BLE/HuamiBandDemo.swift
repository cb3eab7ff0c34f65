import CaptureBluetooth
import Drivers
import Foundation
import Transport
import TransportReplay

/// A Huami band in software (a Mi Band or an Amazfit, the protocol Gadgetbridge calls Huami) on
/// `SimulatedPeripheral`: service 0xFEE0 with the fetch control point (…0004) and the activity
/// data (…0005), service 0xFEE1 with the authentication characteristic (…0009), and Device
/// Information with a serial number. It serves a per-minute history:
///
/// - authentication: a random number on `02 00`, `10 03 01` when the answer is that number
///   AES-128 encrypted with the band's key, `10 03 04` otherwise; nothing is fetched before;
/// - a fetch from the first minute at or after the start command's instant, at most
///   `minutesPerFetch` minutes, its first sample's wall time given in the band's zone at that
///   instant; the data in 20-byte packets (a counter byte and 19 bytes), then `10 02 01`;
/// - a sports summary fetch (type 0x05) from the first workout at or after the start command's
///   instant: its summary's bytes, the answer's start time the workout's start in the band's zone;
///   none left, a count of 0;
/// - a sports detail fetch (type 0x06) from a workout's start: its detail's records, the answer's
///   start time as its summary's; a count of 0 for a workout without detail;
/// - a lost link: after `linkLossAfterPackets` data packets in all, the band sends nothing more
///   and the connection ends.
package final class HuamiBandSimulator {
    package var peer: BLEPeer
    package var serial: String
    package var key: [UInt8]
    package var form: HuamiSampleForm
    /// The first minute of the history (UTC, on a whole minute).
    package var historyStart: Date
    package var samples: [HuamiActivitySample]
    /// The workouts the band logged, oldest first: each one's start (UTC) and summary.
    package var workouts: [(start: Date, summary: HuamiWorkoutSummary)] = []
    /// The sports detail of each workout that has one, by the workout's start.
    package var details: [Date: HuamiWorkoutDetail] = [:]
    /// The band's zone: its clock's UTC offset at each fetch's first sample.
    package var zone: TimeZone
    package var minutesPerFetch = 1440
    /// Data packets sent in the whole session before the link is lost; nil: never.
    package var linkLossAfterPackets: Int?
    /// Fetch types the band refuses (status 0x02), as a model without them does.
    package var refusedTypes: Set<UInt8> = []
    /// Whether the end of a fetch carries the data's CRC-32 (some models do).
    package var sendsCRC = false
    /// Damage: the last byte of each fetch's first packet changed after its CRC-32 was taken.
    package var corruptsData = false

    package init(
        peer: BLEPeer, serial: String, key: [UInt8], form: HuamiSampleForm, historyStart: Date, samples: [HuamiActivitySample],
        zone: TimeZone
    ) {
        self.peer = peer
        self.serial = serial
        self.key = key
        self.form = form
        self.historyStart = historyStart
        self.samples = samples
        self.zone = zone
    }

    /// The history's bytes from sample `first` on, `count` samples.
    package func data(from first: Int, count: Int) -> [UInt8] {
        samples[first..<(first + count)].flatMap { sample in
            Array(sample.bytes.prefix(form.rawValue)) + Array(repeating: 0, count: max(0, form.rawValue - sample.bytes.count))
        }
    }

    /// The band as a peripheral on `clock`; each call starts a new connection.
    package func peripheral(clock: SimulatedClock) -> SimulatedPeripheral {
        let state = State()
        let band = SimulatedPeripheral(
            peer: peer,
            services: [
                .init(0x1800, [.init(0x2A00, .read, value: Array((peer.name ?? "").utf8))]),
                .init(0x180A, [.init(0x2A25, .read, value: Array(serial.utf8))]),
                .init(
                    0xFEE0,
                    [
                        .init(uuid: HuamiCharacteristic.fetchControl.uuid, [.write, .notify]),
                        .init(uuid: HuamiCharacteristic.activityData.uuid, [.notify]),
                    ]),
                .init(0xFEE1, [.init(uuid: HuamiCharacteristic.auth.uuid, [.writeWithoutResponse, .write, .notify])]),
            ],
            clock: clock)
        band.controlPoints[HuamiCharacteristic.auth.uuid] = { [self] value in authenticate(value, state) }
        band.controlPoints[HuamiCharacteristic.fetchControl.uuid] = { [self] value in fetch(value, state) }
        return band
    }

    private final class State {
        var random: [UInt8]?
        var authenticated = false
        var nonce: UInt8 = 0x5A
        /// The samples the band announced: first index and count.
        var pending: (first: Int, count: Int)?
        /// The sports summary or detail the band announced.
        var pendingData: [UInt8]?
        var packetsSent = 0
        var lost = false
    }

    private func authenticate(_ value: [UInt8], _ state: State) -> [SimulatedPeripheral.Emission] {
        guard !state.lost else { return [] }
        switch HuamiAuthMessage.decodeRequest(value) {
        case .requestRandom?:
            // A new number each time, as a band makes one.
            let random = (0..<16).map { index -> UInt8 in
                state.nonce = state.nonce &* 73 &+ 41
                return state.nonce ^ UInt8(index)
            }
            state.random = random
            return [emit(.auth, HuamiAuthMessage.random(random).bytes)]
        case .encryptedRandom(let block)?:
            guard let random = state.random else { return [emit(.auth, HuamiAuthMessage.verdict(status: 0x04).bytes)] }
            state.authenticated = AES128(key: key).encrypt(random) == block
            state.random = nil
            return [emit(.auth, HuamiAuthMessage.verdict(status: state.authenticated ? 0x01 : 0x04).bytes)]
        default:
            return []
        }
    }

    private func fetch(_ value: [UInt8], _ state: State) -> [SimulatedPeripheral.Emission] {
        guard !state.lost else { return [] }
        switch HuamiFetchCommand.decode(value) {
        case .start(let type, let since)?:
            guard state.authenticated else { return [emit(.fetchControl, HuamiFetchAnswer.failed(command: 0x01, status: 0x04).bytes)] }
            guard !refusedTypes.contains(type) else { return [emit(.fetchControl, HuamiFetchAnswer.failed(command: 0x01, status: 0x02).bytes)] }
            if type == HuamiFetchCommand.sportsSummaryType || type == HuamiFetchCommand.sportsDetailType {
                state.pending = nil
                state.pendingData = nil
                guard let workout = workouts.first(where: { $0.start >= since.instant }) else {
                    return [emit(.fetchControl, HuamiFetchAnswer.started(count: 0, start: since).bytes)]
                }
                let start = HuamiTime(workout.start, quarterHours: zone.secondsFromGMT(for: workout.start) / 900)
                let bytes = type == HuamiFetchCommand.sportsSummaryType ? workout.summary.bytes : details[workout.start]?.bytes ?? []
                state.pendingData = bytes.isEmpty ? nil : bytes
                return [emit(.fetchControl, HuamiFetchAnswer.started(count: UInt32(bytes.count), start: start).bytes)]
            }
            guard type == HuamiFetchCommand.activityType else {
                return [emit(.fetchControl, HuamiFetchAnswer.failed(command: 0x01, status: 0x02).bytes)]
            }
            state.pendingData = nil
            let offset = since.instant.timeIntervalSince(historyStart) / 60
            let first = max(0, Int(offset.rounded(.up)))
            let count = max(0, min(minutesPerFetch, samples.count - first))
            state.pending = count > 0 ? (first, count) : nil
            let startInstant = count > 0 ? historyStart.addingTimeInterval(TimeInterval(first * 60)) : since.instant
            let start = HuamiTime(startInstant, quarterHours: zone.secondsFromGMT(for: startInstant) / 900)
            return [emit(.fetchControl, HuamiFetchAnswer.started(count: UInt32(count * form.rawValue), start: start).bytes)]
        case .fetch?:
            if let data = state.pendingData {
                state.pendingData = nil
                return packets(of: data, state)
            }
            guard let pending = state.pending else { return [emit(.fetchControl, HuamiFetchAnswer.failed(command: 0x02, status: 0x04).bytes)] }
            state.pending = nil
            return packets(of: data(from: pending.first, count: pending.count), state)
        case .acknowledge?:
            return [emit(.fetchControl, HuamiFetchAnswer.acknowledged.bytes)]
        case nil:
            return []
        }
    }

    /// A fetch's data in packets, then its end; nothing more once the link is lost.
    private func packets(of data: [UInt8], _ state: State) -> [SimulatedPeripheral.Emission] {
        var emissions: [SimulatedPeripheral.Emission] = []
        for (index, var packet) in HuamiPacketStream.packets(of: data).enumerated() {
            if corruptsData, index == 0 { packet[packet.count - 1] ^= 0xFF }
            if let loss = linkLossAfterPackets, state.packetsSent >= loss {
                state.lost = true
                return emissions
            }
            state.packetsSent += 1
            emissions.append(emit(.activityData, packet))
        }
        emissions.append(emit(.fetchControl, HuamiFetchAnswer.finished(crc: sendsCRC ? HuamiCRC32.checksum(data) : nil).bytes))
        return emissions
    }

    private func emit(_ characteristic: HuamiCharacteristic, _ value: [UInt8]) -> SimulatedPeripheral.Emission {
        SimulatedPeripheral.Emission(uuid: characteristic.uuid, value)
    }
}

/// The demo band's history: a Mi Smart Band 5 worn in Berlin from 2024-03-29 to the end of
/// `days` days, through the night clocks go forward (2024-03-31, 02:00 CET → 03:00 CEST). Every
/// minute: asleep at night (00:00–07:00 local, no steps, 52–58 bpm), a 40-minute brisk walk each
/// morning (07:30–08:10, 104–121 steps/min, 112–126 bpm), the band off its wrist for twenty
/// minutes at noon (no heart rate), and light moving about otherwise. All bytes are made here
/// (synthetic data, no band was involved).
package enum HuamiBandDemo {
    package static let peer = BLEPeer(address: BluetoothAddress("C8:0F:10:00:00:05")!, addressType: .public, name: "Mi Smart Band 5")
    package static let serial = "SIM-HUAMI-0005"
    package static let zone = TimeZone(identifier: "Europe/Berlin")!
    /// 2024-03-29 00:00 in Berlin (CET), 2024-03-28T23:00:00Z.
    package static let historyStart = Date(timeIntervalSince1970: 1_711_666_800)

    /// The sample of minute `index` of the history.
    package static func sample(_ index: Int) -> HuamiActivitySample {
        let instant = historyStart.addingTimeInterval(TimeInterval(index * 60))
        let local = Int(instant.timeIntervalSince1970) + zone.secondsFromGMT(for: instant)
        let minuteOfDay = (local % 86_400) / 60
        let wave = UInt8(index % 7)
        switch minuteOfDay {
        case ..<420:
            return HuamiActivitySample(kind: 0x70, intensity: wave, steps: 0, heartRate: 52 + wave, extra: [0, 1, wave % 2, 0])
        case 450..<490:
            return HuamiActivitySample(kind: 0x01, intensity: 60 + wave, steps: 104 + wave * 3, heartRate: 112 + wave * 2, extra: [0, 0, 0, 0])
        case 720..<740:
            return HuamiActivitySample(kind: 0x73, intensity: 0, steps: 0, heartRate: 255, extra: [0, 0, 0, 0])
        default:
            return HuamiActivitySample(
                kind: 0x50, intensity: 10 + wave, steps: index % 5 == 0 ? 12 + wave : 0, heartRate: index % 11 == 0 ? 255 : 68 + wave,
                extra: [0, 0, 0, 0])
        }
    }

    /// The workouts the band logged in `days` days: each morning's walk (07:30 local, 40 minutes)
    /// as a walking workout, its summary in the version of a different model each day (518 Bip S,
    /// 516, 259 Bip) so that every layout is served: 4,150 m, 212 kcal, 118 bpm on average on the
    /// first day, a little more each day after.
    package static func workouts(days: Int) -> [(start: Date, summary: HuamiWorkoutSummary)] {
        let calendar = Calendar.gregorian(in: zone)
        let versions: [UInt16] = [518, 516, 259]
        return (0..<days).map { day in
            let midnight = calendar.date(byAdding: .day, value: day, to: historyStart)!
            let start = calendar.date(bySettingHour: 7, minute: 30, second: 0, of: midnight)!
            let seconds = UInt32(start.timeIntervalSince1970)
            return (
                start,
                HuamiWorkoutSummary(
                    version: versions[day % versions.count], sport: 3, startSeconds: seconds, endSeconds: seconds + 2400,
                    steps: Int32(4410 + 30 * day), activeSeconds: 2400, calories: 212 + Float(day) * 1.5,
                    distance: 4150 + Float(day) * 25.5, averageHeartRate: UInt16(118 + day))
            )
        }
    }

    /// The sports detail of each morning walk of ``workouts(days:)``: a GPS fix at its start,
    /// then the heart rate every 5 s (the rate of its minute in the history), a pause and a resume
    /// halfway; in the combined form Mi Band 6 sends (type 0x0B, with cadence and step length)
    /// on even days, in type 1's one-rate form on odd ones.
    package static func workoutDetails(days: Int) -> [Date: HuamiWorkoutDetail] {
        var details: [Date: HuamiWorkoutDetail] = [:]
        for (day, workout) in workouts(days: days).enumerated() {
            let firstMinute = Int(workout.start.timeIntervalSince(historyStart) / 60)
            var records = [HuamiWorkoutDetail.Record(type: 0x00, second: 0, values: [0x10, 0x00, 0xF0, 0xFF, 0x02, 0x00])]
            for second in stride(from: 5, through: 2400, by: 5) {
                let minute = sample(firstMinute + (second - 1) / 60)
                if day % 2 == 0 {
                    records.append(
                        HuamiWorkoutDetail.Record(
                            type: HuamiWorkoutDetail.combinedType, second: second, values: [minute.heartRate, 0x04, 0, 0, minute.steps, 0x47]))
                } else {
                    records.append(.heartRate(minute.heartRate, at: second))
                }
                if second == 1200 {
                    records.append(HuamiWorkoutDetail.Record(type: 0x02, second: second, values: [0, 0, 0, 0, 0, 0]))
                    records.append(HuamiWorkoutDetail.Record(type: 0x03, second: second + 2, values: [0, 0, 0, 0, 0, 0]))
                }
            }
            details[workout.start] = HuamiWorkoutDetail(records: records)
        }
        return details
    }

    /// Minutes in `days` days from the start, less the hour the DST change skips once it is in.
    package static func minutes(days: Int) -> Int {
        let end = Calendar.gregorian(in: zone).date(byAdding: .day, value: days, to: historyStart)!
        return Int(end.timeIntervalSince(historyStart) / 60)
    }

    /// The simulated band holding `days` days of history under `key`, and their workouts when
    /// `workouts` is set.
    package static func band(days: Int = 3, key: [UInt8], workouts: Bool = false) -> HuamiBandSimulator {
        let band = HuamiBandSimulator(
            peer: peer, serial: serial, key: key, form: .extended, historyStart: historyStart,
            samples: (0..<minutes(days: days)).map(sample), zone: zone)
        if workouts {
            band.workouts = Self.workouts(days: days)
            band.details = workoutDetails(days: days)
        }
        return band
    }

    /// The simulated band holding minutes `range` of the history under `key`.
    package static func band(minutes range: Range<Int>, key: [UInt8]) -> HuamiBandSimulator {
        HuamiBandSimulator(
            peer: peer, serial: serial, key: key, form: .extended, historyStart: historyStart.addingTimeInterval(TimeInterval(range.lowerBound * 60)),
            samples: range.map(sample), zone: zone)
    }

    /// The host's clock 5 minutes after minute `minute` of the history.
    package static func connected(afterMinute minute: Int) -> Date {
        historyStart.addingTimeInterval(TimeInterval(minute * 60 + 300))
    }

    /// The host's clock when the band connects after `days` days: 5 minutes after the last sample.
    package static func connected(days: Int) -> Date {
        historyStart.addingTimeInterval(TimeInterval(minutes(days: days) * 60 + 300))
    }
}

extension Calendar {
    fileprivate static func gregorian(in zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
