import ArgumentParser
import Foundation

/// `loupe`: the Loupe pipeline on the command line — fetch images and make thumbnails, colours
/// and placeholders (`fetch`), see the list scenarios it was built for run against a local origin
/// (`demo`), and look after the disk cache (`cache`).
///
/// Exit status, for every subcommand: 0 when everything succeeded, 1 when some work failed (the
/// rest was still done and reported), 2 for a usage error, with one line naming the problem.
@main
struct LoupeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loupe",
        abstract: "Fetch, cache, downsize and analyse images with the Loupe pipeline.",
        discussion: """
            Start with `loupe demo` to see the pipeline serve a scrolling list and a feed from a local \
            origin, or `loupe fetch --thumbnail 256 --colors --json <url|file>...`.
            """,
        version: "loupe 0.2.0",
        subcommands: [FetchCommand.self, DemoCommand.self, CacheCommand.self, ServeCommand.self])

    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            // ArgumentParser's usage errors exit with 64 (EX_USAGE) and print the whole usage;
            // `loupe` promises 2 and one line, as curl and most Unix tools do.
            if exitCode(for: error) == .validationFailure {
                // A value list of six or more comes as bullet lines: joined into the one line.
                let oneLine = message(for: error).replacingOccurrences(of: ":\n  - ", with: ": ").replacingOccurrences(of: "\n  - ", with: ", ")
                StandardError.writeLine("loupe: \(oneLine) (see `loupe help`)")
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
