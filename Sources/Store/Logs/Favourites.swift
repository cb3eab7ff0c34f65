import Foundation
import GRDB

/// Favourites.
///
/// A favourite Day, meal or exercise session links to a row of `favourite` (its `favourite_id`),
/// named after it: the Day's date, the meal's or session's name. glucobridge creates one
/// `favourite` row per favourite item when it is marked, and deletes it when it is unmarked or
/// its item removed and nothing else links to it (the app may link several items to one row).
///
/// Marking a favourite does not change the item's own values, so an exercise session imported
/// from a device may be marked: a re-import never touches the link.
extension SharedStore {
    /// Marks `day` favourite or not; a Day the store does not hold is created.
    public func setFavourite(day: DayDate, _ isFavourite: Bool) throws(StoreError) {
        let zone = timeZone
        try write { db in
            var days = DayResolver(timeZone: zone)
            let dayID = try days.id(of: day, in: db)
            try Self.linkFavourite(table: "day", id: dayID, isFavourite, name: day.description, db)
        }
    }

    /// Flips the favourite mark of `day` (created when missing); returns whether it is now a favourite.
    @discardableResult
    public func toggleFavourite(day: DayDate) throws(StoreError) -> Bool {
        let zone = timeZone
        return try write { db in
            var days = DayResolver(timeZone: zone)
            let dayID = try days.id(of: day, in: db)
            let isFavourite =
                try Bool.fetchOne(
                    db, sql: "SELECT favourite_id IS NOT NULL FROM day WHERE id = ?", arguments: [dayID]) ?? false
            try Self.linkFavourite(table: "day", id: dayID, !isFavourite, name: day.description, db)
            return !isFavourite
        }
    }

    /// The favourite Days, by date ascending (through the partial index `day_favourites_by_date`).
    public func favouriteDays() throws(StoreError) -> [DayDate] {
        try read { db in
            try String.fetchAll(db, sql: FavouriteQuery.days).map { text in
                guard let date = DayDate(text) else {
                    throw StoreError.database("the store holds a value glucobridge cannot read: day.date = '\(text)'")
                }
                return date
            }
        }
    }

    /// Marks the meal or exercise session `id` favourite or not, without changing its values.
    /// Unlike ``update(_:with:)``, this works on an exercise session imported from a device.
    ///
    /// - Throws: ``StoreError/notFound(kind:id:)``; ``StoreError/invalidLog(kind:reason:)`` for a
    ///   meal without a name.
    @discardableResult
    public func setFavourite<Log: FavouritableLog>(_ id: LogID<Log>, _ isFavourite: Bool) throws(StoreError) -> Stored<Log> {
        let zone = timeZone
        return try write { db in
            var stored = try Self.fetchStored(id, db)
            stored.log.isFavourite = isFavourite
            try Log.columns.validate(stored.log, zone)
            try Self.linkFavourite(Log.kind, id: id.rawValue, isFavourite, name: stored.log.name, db)
            return try Self.fetchStored(id, db)
        }
    }

    /// The favourite meals or exercise sessions (`favourites(MealLog.self)`), by name (ignoring
    /// case), then time; through the partial indexes `meal_favourites_by_name` and
    /// `exercise_favourites_by_name`.
    public func favourites<Log: FavouritableLog>(_ type: Log.Type) throws(StoreError) -> [Stored<Log>] {
        try read { db in
            try Self.fetchStored(
                Log.self, where: FavouriteQuery.condition, [], orderBy: FavouriteQuery.orderBy, db)
        }
    }

    // MARK: - Links

    static func linkFavourite(_ kind: LogKind, id: Int64, _ isFavourite: Bool, name: String, _ db: Database) throws {
        try linkFavourite(table: kind.table, id: id, isFavourite, name: name, db)
    }

    /// Links the row `id` of `table` to a new `favourite` row named `name`, or unlinks it and
    /// removes its `favourite` row when nothing else links to it. A row already linked keeps its link.
    static func linkFavourite(table: String, id: Int64, _ isFavourite: Bool, name: String, _ db: Database) throws {
        let current = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT favourite_id FROM \(table) WHERE id = ?"), arguments: [id])
        switch (isFavourite, current) {
        case (true, nil):
            try db.cachedStatement(sql: "INSERT INTO favourite (name) VALUES (?)").execute(arguments: [name])
            try db.cachedStatement(sql: "UPDATE \(table) SET favourite_id = ? WHERE id = ?")
                .execute(arguments: [db.lastInsertedRowID, id])
        case (false, let favourite?):
            try db.cachedStatement(sql: "UPDATE \(table) SET favourite_id = NULL WHERE id = ?").execute(arguments: [id])
            try removeFavouriteIfUnused(favourite, db)
        default:
            break
        }
    }

    /// Deletes the `favourite` row `id` when no Day, meal or exercise links to it.
    static func removeFavouriteIfUnused(_ id: Int64, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                DELETE FROM favourite WHERE id = ?1
                    AND NOT EXISTS (SELECT 1 FROM day WHERE favourite_id = ?1)
                    AND NOT EXISTS (SELECT 1 FROM meal WHERE favourite_id = ?1)
                    AND NOT EXISTS (SELECT 1 FROM exercise WHERE favourite_id = ?1)
                """
        ).execute(arguments: [id])
    }
}

enum FavouriteQuery {
    static let days = "SELECT date FROM day WHERE favourite_id IS NOT NULL ORDER BY date"
    static let condition = "t.favourite_id IS NOT NULL"
    static let orderBy = "t.name COLLATE NOCASE, t.time, t.id"
}
