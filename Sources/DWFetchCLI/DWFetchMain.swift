// DWFetchMain: the entry point every dwfetch executable shares — parse the whole argument tree, then run the command
// with this executable's engines or hand it to the executable that has them.
import ArgumentParser
import DWWebImage
import DWFileIO
import Foundation

/// `main` of `dwfetch`, `dwfetch-pixels`, `dwfetch-demo` and `dwfetch-serve`. Runs on the main thread and never
/// returns.
package enum DWFetchMain {
    /// Parses `CommandLine.arguments` and runs what they ask for; exits with the command's status (2 for usage
    /// errors, as docs/dwfetch.md says, not ArgumentParser's 64; 0 for --help and --version).
    package static func run(engines: DWFetchEngines) -> Never {
        signal(SIGPIPE, SIG_IGN)
        let arguments = Array(CommandLine.arguments.dropFirst())
        // `--version` alone prints before the argument tree is built: the same text ArgumentParser would print, without
        // its reflection over the binary's conformance records (~18 M instructions and ~1 MiB of pages;
        // docs/performance.md, "Start-up"). With other arguments it is parsed as usual.
        if arguments == ["--version"] {
            print(VersionText.text)
            exit(0)
        }
        let type = commandType(for: arguments)
        if type == DWFetch.self { HeapTuning.applyForFetchRun() }  // before any other thread (HeapTuning says why)
        // A run that skips the cache sends every URL to the network: libcurl is opened on another core while
        // ArgumentParser reflects over the command (each is ~17 M instructions; docs/performance.md,
        // "Start-up"). A guess from the raw arguments: when it is wrong (`--no-cache` as another option's value), a
        // run from the cache loads libcurl it did not need, on a core it was not using.
        let preload = type == DWFetch.self && arguments.contains("--no-cache") ? TransportPreload() : nil
        let status = status(of: arguments, as: type, engines: engines)
        preload?.wait()  // never exit before that thread is gone (TransportPreload says why)
        exit(status)
    }

    /// Parses and runs the command; its exit status.
    private static func status(
        of arguments: [String], as type: any ParsableCommand.Type, engines: DWFetchEngines
    ) -> Int32 {
        var arguments = arguments
        if type == ServeOptions.self, arguments.first == "serve" {
            guard let withEnvironment = serveArguments(arguments, warn: engines.serve != nil) else { return 2 }
            arguments = withEnvironment
        }
        do {
            var command = try parse(arguments, as: type)
            switch command {
            case let serve as ServeOptions:
                guard let runServe = engines.serve else { return EngineHandoff.exec(EngineHandoff.serve) }
                return try runServe(serve)
            case let warm as WarmCommand:
                guard let runWarm = engines.warm else { return EngineHandoff.exec(EngineHandoff.serve) }
                return try runWarm(warm)
            case let health as HealthCommand:
                return health.probe()
            case let fetch as DWFetch:
                if fetch.demo && engines.demo == nil { return EngineHandoff.exec(EngineHandoff.demo) }
                if fetch.needsPixelEngine && engines.pixels == nil { return EngineHandoff.exec(EngineHandoff.pixels) }
                return try FetchCommand(command: fetch, engines: engines).run()
            default:
                try command.run()  // ArgumentParser's own `help` command (what `--help` parses to with subcommands)
                return 0
            }
        } catch let code as ExitCode {
            return code.rawValue
        } catch {
            if type.exitCode(for: error) == .success {
                print(type.fullMessage(for: error))
                return 0
            }
            StandardStream.error.write(type.fullMessage(for: error) + "\n")
            let help = type == DWFetch.self ? "dwfetch --help" : "dwfetch \(type._commandName) --help"
            StandardStream.error.write("Run '\(help)' for usage.\n")
            return 2
        }
    }

    /// `serve`'s arguments with the flags its `IMGPROXY_*` environment stands for put first (the command line's own
    /// win), and `IMGPROXY_S3_REGION` exported as `AWS_REGION`; nil (after printing why) when a variable does not
    /// parse or cannot be honoured. Warnings are printed by the executable that runs the server only (the thin
    /// dwfetch reads the same environment before it hands over).
    private static func serveArguments(_ arguments: [String], warn: Bool) -> [String]? {
        let environment = ProcessInfo.processInfo.environment
        let rest = Array(arguments.dropFirst())
        do {
            let translation = try ServeEnvironment.translate(environment, arguments: rest)
            if warn {
                for warning in translation.warnings {
                    StandardStream.error.write("dwfetch serve: warning: \(warning)\n")
                }
            }
            for (name, value) in ServeEnvironment.exportingS3Region(environment) { setenv(name, value, 1) }
            return ["serve"] + translation.flags + rest
        } catch {
            StandardStream.error.write("dwfetch serve: \(error)\n")
            return nil
        }
    }

    /// The command the arguments are for: a first argument naming one of ``DWFetch``'s subcommands (`serve`) selects
    /// it, and `help NAME` its help. ArgumentParser cannot tell subcommand names from a root's positional arguments
    /// (its lenient pass takes `serve` as a URL), so the root's own subcommand list is consulted first.
    static func commandType(for arguments: [String]) -> ParsableCommand.Type {
        var name = arguments.first
        if name == "help" { name = arguments.dropFirst().first }
        return DWFetch.configuration.subcommands.first { $0._commandName == name } ?? DWFetch.self
    }

    /// Parses `arguments` for `type` (a subcommand without its own name).
    static func parse(_ arguments: [String], as type: ParsableCommand.Type) throws -> ParsableCommand {
        guard type != DWFetch.self else {
            return try DWFetch.parseAsRoot(arguments == ["help"] ? ["--help"] : arguments)
        }
        if arguments.first == "help" { return try type.parseAsRoot(["--help"]) }
        return try type.parseAsRoot(Array(arguments.dropFirst()))
    }
}

extension DWFetch {
    /// Whether this run needs dwfetch-pixels' engines: the pixel flags (libvips) or `--preview` (libchafa).
    /// `--demo` runs in dwfetch-demo, which has them too.
    package var needsPixelEngine: Bool { processing.isRequested || preview.requested }
}
