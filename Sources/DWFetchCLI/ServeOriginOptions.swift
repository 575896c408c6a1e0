// ServeOriginOptions: `dwfetch serve --origins FILE`, the named origins sources address as `NAME://PATH`.
import ArgumentParser

/// The named origins' file (an `@OptionGroup` of ``ServeOptions``); read and checked by dwfetch-serve at start-up
/// (docs/serving.md, "Named origins"). Parsed on the main thread.
package struct ServeOriginOptions: ParsableArguments, Sendable {
    @Option(
        name: .customLong("origins"),
        help: ArgumentHelp(
            "A TOML file of named origins ([origins.NAME]: url, or s3 + endpoint, region and the names of the "
                + "credentials' environment variables; headers; allow_network), addressed as NAME://PATH.",
            valueName: "FILE"))
    package var originsFile: String?

    package init() {}
}
