import ArgumentParser
import Foundation
import Logging
import LoupeOrigin
import LoupeServer

/// `loupe serve`: the image service — imgproxy-compatible URLs over HTTP on the pipeline.
/// Settings come from flags or `LOUPE_*` environment variables (a flag wins); an invalid one
/// stops start-up with one line on standard error and exit status 2.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve resized images over HTTP with imgproxy-compatible URLs.",
        usage: "loupe serve [<setting> ...] [--quiet] [--dev]",
        discussion: """
            Every setting can also be given as an environment variable: LOUPE_ and the flag in capitals \
            with _ for - (LOUPE_PORT, LOUPE_ALLOWED_SOURCES, ...). A flag wins over the variable. \
            imgproxy's IMGPROXY_* variables are read too, below both (docs/imgproxy-environment.md); \
            those Loupe does not take are named in the log at start-up. \
            SIGHUP re-reads the watermark image (a failure is logged and the old one kept). \
            SIGTERM or SIGINT drains: /health answers 503 at once, requests are still accepted for \
            --drain-delay seconds, then no new connection is, requests in flight finish, and the server exits 0. \
            A second SIGTERM or SIGINT during that stops at once, cutting requests in flight, with exit status 1.


            """ + SettingArguments.help)

    /// The settings (`--name value`, `--name=value`, a boolean's bare `--name`), read by
    /// ``SettingArguments`` from their declarations, which `--help` lists in the discussion.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp(visibility: .hidden)) var settingArguments: [String] = []
    @Flag(help: "No access log on standard error.") var quiet = false
    @Flag(help: "Development: serve unsigned URLs and sample photos from an origin on 127.0.0.1, and print an example URL.")
    var dev = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var settings: ServerSettings
        do {
            settings = try ServerSettings(flags: SettingArguments.flags(in: settingArguments), environment: environment)
        } catch {
            StandardError.writeLine("loupe serve: \(error)")
            throw ExitCode(2)
        }
        guard dev else {
            try await serve(settings) { _ in }
            return
        }
        guard settings.keys.isEmpty else {
            StandardError.writeLine("loupe serve: --dev serves unsigned URLs and cannot be combined with --key")
            throw ExitCode(2)
        }
        // The sample origin of `loupe demo` (generated photos) on 127.0.0.1, let through the
        // private-network guard, which stays on for everything else.
        settings.allowsUnsigned = true
        settings.addressPolicy.permittedAddresses.insert("127.0.0.1")
        let images = DemoImages()
        try await OriginServer.run(handler: { request in await images.response(for: request.path, latency: .zero) }) { origin in
            settings.playground = true
            settings.playgroundSamples = DemoImages.playgroundSamples(origin: origin)
            let configured = settings
            try await serve(settings) { port in
                let source = origin.url("/photos/sunset.jpg").absoluteString
                StandardOutput.writeLine("""
                    development server: unsigned URLs, sample photos from \(origin.baseURL.absoluteString); try
                      http://\(configured.host):\(port)/ (the playground)
                      http://\(configured.host):\(port)/insecure/rs:fill:300:300/g:ce/q:80/plain/\(source)@webp
                      http://\(configured.host):\(port)/info/insecure/plain/\(source)
                    """)
            }
        }
    }

    /// Runs the server until it is told to stop; `started` is called with the port.
    private func serve(_ settings: ServerSettings, started: @escaping @Sendable (Int) -> Void) async throws {
        let logger = Logger(label: "loupe.serve") { JSONLogHandler(label: $0) }
        // imgproxy's variables Loupe does not take: named once each, never dropped silently.
        for (name, reason) in ImgproxyEnvironment.ignored(in: ProcessInfo.processInfo.environment) {
            logger.warning("ignored imgproxy setting", metadata: ["variable": "\(name)", "reason": "\(reason)"])
        }
        let server: ImageServer
        do {
            server = try ImageServer(settings: settings, logger: logger, accessLog: quiet ? nil : Logger(label: "loupe.access") { JSONLogHandler(label: $0) })
        } catch {
            StandardError.writeLine("loupe serve: cannot start: \(error)")
            throw ExitCode(2)
        }
        do {
            try await server.reloadWatermark()
            try await server.loadFallbackImage()
        } catch {
            StandardError.writeLine("loupe serve: \(error)")
            throw ExitCode(2)
        }
        do {
            try await ServeLifecycle(server: server, logger: logger).run { port in
                StandardOutput.writeLine("loupe serve: listening on http://\(settings.host):\(port)")
                started(port)
            }
        } catch let stop as ServerStop {
            StandardError.writeLine("loupe serve: \(stop)")
            throw ExitCode(1)
        } catch {
            StandardError.writeLine("loupe serve: \(error)")
            throw ExitCode(2)
        }
    }
}
