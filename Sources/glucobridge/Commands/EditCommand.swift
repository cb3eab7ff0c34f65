import ArgumentParser
import Foundation
import Model
import Store

struct EditCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Changes a log entered in the app or on the command line; a new time moves it to its new Day.",
        discussion: """
            Give only the values to change. glucose: --at --value --unit; insulin: --at --units; \
            meal: --at --name --carbs --protein --fat --favourite/--no-favourite; exercise: --at \
            --name --minutes --intensity --favourite/--no-favourite; illness, stress: --at (the \
            start) --end. Logs imported from a device cannot be edited (an imported exercise \
            session can still be marked favourite).
            """)

    @Argument(help: "The kind of log.")
    var kind: LogKind

    @Argument(help: "The log's id, as `day` shows it.")
    var id: Int64

    @Option(name: .long, help: ArgumentHelp("The new time (an episode's start): \(TimeInput.help).", valueName: "time"))
    var at: String?

    @Option(name: .long, help: ArgumentHelp("An episode's end: \(TimeInput.help).", valueName: "time"))
    var end: String?

    @Option(name: .long, help: "A glucose value, in its unit.")
    var value: Double?

    @Option(name: .long, help: "A glucose value's unit.")
    var unit: GlucoseUnit?

    @Option(name: .long, help: "An insulin dose, in units.")
    var units: Double?

    @Option(name: .long, help: "A meal's or exercise session's name.")
    var name: String?

    @Option(name: .long, help: ArgumentHelp("A meal's carbohydrates, in grams.", valueName: "g"))
    var carbs: Double?

    @Option(name: .long, help: ArgumentHelp("A meal's protein, in grams.", valueName: "g"))
    var protein: Double?

    @Option(name: .long, help: ArgumentHelp("A meal's fat, in grams.", valueName: "g"))
    var fat: Double?

    @Option(name: .long, help: "An exercise session's length, in minutes.")
    var minutes: Double?

    @Option(name: .long, help: "An exercise session's intensity.")
    var intensity: ExerciseIntensity?

    @Flag(name: .long, inversion: .prefixedNo, help: "Mark a meal or exercise session favourite, or not.")
    var favourite: Bool?

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func output(_ store: SharedStore) throws -> String {
        let zone = store.timeZone
        let time = try at.map { try TimeInput.instant($0, zone: zone) }
        switch kind {
        case .glucose:
            try check(allowed: ["--at", "--value", "--unit"])
            if unit != nil, value == nil { throw CLIError("--unit needs --value: give the value in that unit") }
            return try edit(GlucoseLog.self, store) { log in
                if let time { log.time = time }
                if let unit { log.unit = unit }
                if let value {
                    // In the log's own unit unless --unit changes it.
                    log.value = value
                    try GlucoseInput.check(value, unit: log.unit)
                }
            }
        case .insulin:
            try check(allowed: ["--at", "--units"])
            return try edit(InsulinLog.self, store) { log in
                if let time { log.time = time }
                if let units { log.units = units }
            }
        case .meal:
            try check(allowed: ["--at", "--name", "--carbs", "--protein", "--fat", "--favourite"])
            return try edit(MealLog.self, store) { log in
                if let time { log.time = time }
                if let name { log.name = name }
                if let carbs { log.carbs = carbs }
                if let protein { log.protein = protein }
                if let fat { log.fat = fat }
                if let favourite { log.isFavourite = favourite }
            }
        case .exercise:
            try check(allowed: ["--at", "--name", "--minutes", "--intensity", "--favourite"])
            if let favourite, given == ["--favourite"] {
                // Only the mark: allowed on an imported session too.
                let stored = try store.setFavourite(LogID<ExerciseLog>(id), favourite)
                return try LogReport.text("changed", stored, store: store, json: outputOptions.json)
            }
            return try edit(ExerciseLog.self, store) { log in
                if let time { log.time = time }
                if let name { log.name = name }
                if let minutes { log.duration = minutes * 60 }
                if let intensity { log.intensity = intensity }
                if let favourite { log.isFavourite = favourite }
            }
        case .illness:
            try check(allowed: ["--at", "--end"])
            return try editEpisode(IllnessEpisode.self, store, start: time)
        case .stress:
            try check(allowed: ["--at", "--end"])
            return try editEpisode(StressEpisode.self, store, start: time)
        }
    }

    /// The value options given.
    var given: [String] {
        let options: [(String, Bool)] = [
            ("--at", at != nil), ("--end", end != nil), ("--value", value != nil), ("--unit", unit != nil),
            ("--units", units != nil), ("--name", name != nil), ("--carbs", carbs != nil),
            ("--protein", protein != nil), ("--fat", fat != nil), ("--minutes", minutes != nil),
            ("--intensity", intensity != nil), ("--favourite", favourite != nil),
        ]
        return options.filter(\.1).map(\.0)
    }

    /// Throws unless at least one option is given and all of them apply to the kind.
    private func check(allowed: [String]) throws {
        let article = kind == .insulin || kind == .exercise || kind == .illness ? "an" : "a"
        let takes = "\(article) \(kind) log takes \(allowed.joined(separator: ", "))"
        if let wrong = given.first(where: { !allowed.contains($0) }) {
            throw CLIError("\(wrong) does not apply to \(article) \(kind) log; \(takes)")
        }
        guard !given.isEmpty else { throw CLIError("nothing to change: \(takes)") }
    }

    private func edit<Log: PresentableLog>(
        _ type: Log.Type, _ store: SharedStore, _ change: (inout Log) throws -> Void
    ) throws -> String {
        var stored = try store.log(LogID<Log>(id))
        try change(&stored.log)
        return try LogReport.text("changed", try store.update(stored), store: store, json: outputOptions.json)
    }

    private func editEpisode<Episode: EpisodeEntry & PresentableLog>(
        _ type: Episode.Type, _ store: SharedStore, start: Date?
    ) throws -> String {
        let end = try self.end.map { try TimeInput.instant($0, zone: store.timeZone) }
        return try edit(Episode.self, store) { episode in
            if let start { episode.start = start }
            if let end { episode.end = end }
        }
    }
}
