import ArgumentParser
import Foundation
import Store

struct LogMealCommand: AddLogCommand {
    static let configuration = CommandConfiguration(commandName: "meal", abstract: "Adds a meal.")

    @Option(name: .long, help: ArgumentHelp("When: \(TimeInput.help).", valueName: "time"))
    var at = "now"

    @Option(name: .long, help: "What it was, e.g. Oatmeal.")
    var name = ""

    @Option(name: .long, help: ArgumentHelp("Carbohydrates, in grams.", valueName: "g"))
    var carbs = 0.0

    @Option(name: .long, help: ArgumentHelp("Protein, in grams.", valueName: "g"))
    var protein = 0.0

    @Option(name: .long, help: ArgumentHelp("Fat, in grams.", valueName: "g"))
    var fat = 0.0

    @Flag(name: .long, help: "Mark the meal favourite (it needs a name).")
    var favourite = false

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func log(at time: Date) -> MealLog {
        MealLog(time: time, name: name, carbs: carbs, protein: protein, fat: fat, isFavourite: favourite)
    }
}
