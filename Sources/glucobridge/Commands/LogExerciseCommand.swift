import ArgumentParser
import Foundation
import Store

struct LogExerciseCommand: AddLogCommand {
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

    func log(at time: Date) -> ExerciseLog {
        ExerciseLog(time: time, name: name, duration: minutes * 60, intensity: intensity, isFavourite: favourite)
    }
}
