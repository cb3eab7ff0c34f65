import Foundation
import GRDB

/// Names an episode kind in ``SharedStore/startEpisode(_:at:)`` and ``SharedStore/stopEpisode(_:at:)``:
/// `.illness` or `.stress`, each typed with its episode.
public struct EpisodeKind<Episode: EpisodeEntry>: Sendable {
    init() {}
}

extension EpisodeKind where Episode == IllnessEpisode {
    public static var illness: Self { Self() }
}

extension EpisodeKind where Episode == StressEpisode {
    public static var stress: Self { Self() }
}

extension SharedStore {
    /// Starts an episode of `kind` at `start`: stores it open (without an end), on the Day of
    /// `start`.
    ///
    /// At most one episode of each kind is open at a time. The rule is also enforced by the
    /// schema for every writer (a partial unique index on the open episodes).
    ///
    /// - Throws: ``StoreError/episodeAlreadyOpen(kind:since:zone:)`` when one is open already.
    @discardableResult
    public func startEpisode<Episode: EpisodeEntry>(_ kind: EpisodeKind<Episode>, at start: Date) throws(StoreError) -> Stored<Episode> {
        try add(Episode(start: start, end: nil))
    }

    /// Ends the open episode of `kind` at `end`. The episode stays on the Day it started on;
    /// its duration is `end − start`.
    ///
    /// - Throws: ``StoreError/noOpenEpisode(kind:)`` when none is open;
    ///   ``StoreError/invalidLog(kind:reason:)`` when `end` is before its start.
    @discardableResult
    public func stopEpisode<Episode: EpisodeEntry>(_ kind: EpisodeKind<Episode>, at end: Date) throws(StoreError) -> Stored<Episode> {
        let zone = timeZone
        return try write { db in
            guard var open = try Self.openEpisode(Episode.self, db) else {
                throw StoreError.noOpenEpisode(kind: Episode.kind)
            }
            open.log.end = end
            try Self.check(open.log, zone)
            return try Self.write(open.log, id: open.id, db, zone)
        }
    }

    /// The open episode of `kind`, if any.
    public func openEpisode<Episode: EpisodeEntry>(_ kind: EpisodeKind<Episode>) throws(StoreError) -> Stored<Episode>? {
        try read { db in try Self.openEpisode(Episode.self, db) }
    }

    static func openEpisode<Episode: EpisodeEntry>(_ type: Episode.Type, _ db: Database) throws -> Stored<Episode>? {
        try fetchStored(Episode.self, where: "t.end_time IS NULL", [], db).first
    }

    /// Throws ``StoreError/episodeAlreadyOpen(kind:since:zone:)`` when an episode of `kind` other
    /// than the row `other` is open.
    static func checkNoOpenEpisode(_ kind: LogKind, other: Int64?, _ db: Database, _ zone: TimeZone) throws {
        let sql = "SELECT start_time FROM \(kind.table) WHERE end_time IS NULL AND id IS NOT ?"
        if let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [other]) {
            throw StoreError.episodeAlreadyOpen(kind: kind, since: try Decode.instant(row, 0, "\(kind).start_time"), zone: zone)
        }
    }
}
