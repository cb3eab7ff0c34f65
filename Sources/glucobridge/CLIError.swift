import ArgumentParser
import Foundation

/// A failure reported as one line on stderr with exit status 1.
struct CLIError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

extension ParsableCommand {
    /// Runs `body`; any error becomes one plain line on stderr and exit status 1.
    func reportingErrors(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ExitCode {
            throw error
        } catch {
            FileHandle.standardError.write(Data("glucobridge: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
