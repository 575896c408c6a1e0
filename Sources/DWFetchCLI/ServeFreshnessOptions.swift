// ServeFreshnessOptions: `dwfetch serve`'s flag for how long an original is trusted before its origin is asked again.
import ArgumentParser

/// How fresh `serve` keeps its originals (an `@OptionGroup` of ``ServeOptions``). Parsed on the main thread.
package struct ServeFreshnessOptions: ParsableArguments, Sendable {
    @Option(
        name: .customLong("revalidate-after"),
        help: ArgumentHelp(
            "Seconds after which a source is checked with its origin (one conditional GET) on its next request; a "
                + "changed source drops its variants.", valueName: "SEC"))
    package var revalidateAfter: Double?

    package init() {}

    /// Checks the value (exit 2 when wrong).
    package func validate() throws {
        if let revalidateAfter, !(revalidateAfter.isFinite && revalidateAfter > 0) {
            throw ValidationError("--revalidate-after is a number of seconds above 0")
        }
    }
}
