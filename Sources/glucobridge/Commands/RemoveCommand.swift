import ArgumentParser
import Foundation
import Store

struct RemoveCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Removes a log entered in the app or on the command line; its Day stays.",
        discussion: "Logs imported from a device cannot be removed: a re-import would bring them back.")

    @Argument(help: "The kind of log.")
    var kind: LogKind

    @Argument(help: "The log's id, as `day` shows it.")
    var id: Int64

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func output(_ store: SharedStore) throws -> String {
        switch kind {
        case .glucose: try remove(GlucoseLog.self, store)
        case .insulin: try remove(InsulinLog.self, store)
        case .meal: try remove(MealLog.self, store)
        case .exercise: try remove(ExerciseLog.self, store)
        case .illness: try remove(IllnessEpisode.self, store)
        case .stress: try remove(StressEpisode.self, store)
        }
    }

    /// Removes the log and reports it as it was.
    private func remove<Log: PresentableLog>(_ type: Log.Type, _ store: SharedStore) throws -> String {
        let id = LogID<Log>(id)
        let stored = try store.log(id)
        try store.remove(id)
        return try LogReport.text("removed", stored, store: store, json: outputOptions.json)
    }
}
