import ArgumentParser
import Foundation
import Store

struct LogExerciseCommand: StoreCommand {
    static let configuration = CommandConfiguration(commandName: "exercise", abstract: "Adds an exercise session.")

    @Option(name: .long, help: ArgumentHelp("When it started: \(TimeInput.help).", valueName: "time"))
    var at = "now"

    @Option(name: .long, help: "What it was, e.g. Walking, Running, Cycling.")
    var name: String

    @Option(name: .long, help: "How long it lasted, in minutes.")
    var minutes: Double

    @Option(name: .long, help: "How hard it was.")
    var intensity: ExerciseIntensity = .moderate

    @Flag(name: .long, help: "Mark the session favourite.")
    var favourite = false

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func run() throws { try runOnStore() }

    func output(_ store: SharedStore) throws -> String {
        let time = try TimeInput.instant(at, zone: store.timeZone)
        let session = ExerciseLog(time: time, name: name, duration: minutes * 60, intensity: intensity, isFavourite: favourite)
        return try LogReport.text("added", try store.add(session), zone: store.timeZone, json: outputOptions.json)
    }
}
