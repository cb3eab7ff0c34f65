import Foundation
import Store

/// Starting and stopping an illness or stress episode, for `illness` and `stress`.
enum EpisodeReport {
    static func start<Episode: EpisodeEntry & PresentableLog>(
        _ kind: EpisodeKind<Episode>, at text: String, store: SharedStore, json: Bool
    ) throws -> String {
        let stored = try store.startEpisode(kind, at: try TimeInput.instant(text, zone: store.timeZone))
        if json { return try Format.json(stored.record) }
        return "started \(stored.label) on \(stored.day) at \(Format.localTime(stored.start, zone: store.timeZone))"
    }

    static func stop<Episode: EpisodeEntry & PresentableLog>(
        _ kind: EpisodeKind<Episode>, at text: String, store: SharedStore, json: Bool
    ) throws -> String {
        let stored = try store.stopEpisode(kind, at: try TimeInput.instant(text, zone: store.timeZone))
        if json { return try Format.json(stored.record) }
        return "stopped \(stored.label), started on \(stored.day) at \(Format.localTime(stored.start, zone: store.timeZone)): "
            + stored.details(zone: store.timeZone)
    }
}
