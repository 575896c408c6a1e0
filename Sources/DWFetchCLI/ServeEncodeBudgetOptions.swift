// ServeEncodeBudgetOptions: `dwfetch serve`'s encode budget — AVIF and JPEG XL without the wait.
import ArgumentParser

/// The encode budget of formats `Accept` picks (an `@OptionGroup` of ``ServeOptions``; docs/formats.md, "Encode
/// budget"). Parsed on the main thread.
package struct ServeEncodeBudgetOptions: ParsableArguments, Sendable {
    @Option(
        name: .customLong("encode-budget"),
        help: ArgumentHelp(
            "An AVIF or JPEG XL that Accept picked (--auto-avif, --auto-jxl) and is expected to take longer to encode "
                + "is answered at once in the next format (WebP), max-age 60, and made in the background for the next "
                + "request.", valueName: "MS"))
    package var encodeBudget: Double?
    @Option(
        name: .customLong("background-encodes"),
        help: ArgumentHelp(
            "Encodes put off by --encode-budget waiting or running at most; more are dropped (made on a later "
                + "request).",
            valueName: "N"))
    package var backgroundEncodes = 2

    package init() {}

    /// Checks the values (exit 2 when wrong).
    package func validate() throws {
        if let encodeBudget, !(encodeBudget.isFinite && encodeBudget > 0) {
            throw ValidationError("--encode-budget is a number of milliseconds above 0")
        }
        guard (1...64).contains(backgroundEncodes) else { throw ValidationError("--background-encodes is 1 to 64") }
    }
}
