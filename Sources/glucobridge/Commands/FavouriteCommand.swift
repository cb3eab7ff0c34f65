import ArgumentParser
import Foundation
import Store

struct FavouriteCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "favourite", abstract: "Marks a Day favourite, or unmarks it when it is one.")

    @OptionGroup var date: DayArgument

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func output(_ store: SharedStore) throws -> String {
        let day = try date.day(zone: store.timeZone)
        let isFavourite = try store.toggleFavourite(day: day)
        if outputOptions.json { return try Format.json(FavouriteJSON(day: day.description, favourite: isFavourite)) }
        return isFavourite ? "\(day) is now a favourite" : "\(day) is no longer a favourite"
    }
}

/// `favourite --json`.
struct FavouriteJSON: Encodable, Equatable {
    var day: String
    var favourite: Bool
}
