import ArgumentParser
import Foundation
import Store

/// A command for one kind of episode, `illness` or `stress`: `start` opens an episode of the
/// kind, `stop` ends the open one (at most one of each kind is open at a time).
protocol EpisodeCommand: ParsableCommand {
    associatedtype Episode: EpisodeEntry & PresentableLog
    /// The kind the command starts and stops.
    static var kind: EpisodeKind<Episode> { get }
    /// The command's name, which is also the kind's name in help: `illness`.
    static var name: String { get }
    /// The kind's name after an indefinite article: `an illness`.
    static var withArticle: String { get }
}

extension EpisodeCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: name, abstract: "Starts or stops \(withArticle) episode (at most one is open at a time).",
            subcommands: [EpisodeEndCommand<Self, EpisodeStart>.self, EpisodeEndCommand<Self, EpisodeStop>.self])
    }
}

struct IllnessCommand: EpisodeCommand {
    static let kind = EpisodeKind<IllnessEpisode>.illness
    static let name = "illness"
    static let withArticle = "an illness"
}

struct StressCommand: EpisodeCommand {
    static let kind = EpisodeKind<StressEpisode>.stress
    static let name = "stress"
    static let withArticle = "a stress"
}

/// `start` or `stop`: which end of an episode a subcommand of an ``EpisodeCommand`` records.
protocol EpisodeEnd {
    /// The subcommand's name.
    static var name: String { get }
    /// Ends "When it …" in the help of `--at`: `started`.
    static var when: String { get }
    /// The subcommand's one-line help for the episodes of `Kind`.
    static func abstract<Kind: EpisodeCommand>(_ kind: Kind.Type) -> String
    /// Records this end of an episode of `kind` at `time`.
    static func record<Episode: EpisodeEntry>(
        _ kind: EpisodeKind<Episode>, at time: Date, store: SharedStore
    ) throws -> Stored<Episode>
    /// What the subcommand prints (as text) about the episode it recorded.
    static func report<Episode: EpisodeEntry & PresentableLog>(_ stored: Stored<Episode>, zone: TimeZone) -> String
}

enum EpisodeStart: EpisodeEnd {
    static let name = "start"
    static let when = "started"

    static func abstract<Kind: EpisodeCommand>(_ kind: Kind.Type) -> String { "Starts \(Kind.withArticle) episode." }

    static func record<Episode: EpisodeEntry>(
        _ kind: EpisodeKind<Episode>, at time: Date, store: SharedStore
    ) throws -> Stored<Episode> {
        try store.startEpisode(kind, at: time)
    }

    static func report<Episode: EpisodeEntry & PresentableLog>(_ stored: Stored<Episode>, zone: TimeZone) -> String {
        "started \(stored.label) on \(stored.day) at \(Format.localTime(stored.start, zone: zone))"
    }
}

enum EpisodeStop: EpisodeEnd {
    static let name = "stop"
    static let when = "ended"

    static func abstract<Kind: EpisodeCommand>(_ kind: Kind.Type) -> String { "Ends the open \(Kind.name) episode." }

    static func record<Episode: EpisodeEntry>(
        _ kind: EpisodeKind<Episode>, at time: Date, store: SharedStore
    ) throws -> Stored<Episode> {
        try store.stopEpisode(kind, at: time)
    }

    static func report<Episode: EpisodeEntry & PresentableLog>(_ stored: Stored<Episode>, zone: TimeZone) -> String {
        "stopped \(stored.label), started on \(stored.day) at \(Format.localTime(stored.start, zone: zone)): "
            + stored.details(zone: zone)
    }
}

/// `illness start`, `stress stop`, …: records one end of an episode of `Kind` at `--at`.
struct EpisodeEndCommand<Kind: EpisodeCommand, End: EpisodeEnd>: StoreCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: End.name, abstract: End.abstract(Kind.self))
    }

    @Option(name: .long, help: ArgumentHelp("When it \(End.when): \(TimeInput.help).", valueName: "time"))
    var at = "now"

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func output(_ store: SharedStore) throws -> String {
        let stored = try End.record(Kind.kind, at: try TimeInput.instant(at, zone: store.timeZone), store: store)
        if outputOptions.json { return try Format.json(stored.record) }
        return End.report(stored, zone: store.timeZone)
    }
}
