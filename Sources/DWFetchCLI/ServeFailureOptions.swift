// ServeFailureOptions: `dwfetch serve`'s flags for what a source costs — the negative cache, the fallback's rules,
// and never answering more than the source.
import ArgumentParser

/// What a failed source costs and how its answer reads, and `--never-larger` (an `@OptionGroup` of
/// ``ServeOptions``). Parsed on the main thread.
package struct ServeFailureOptions: ParsableArguments, Sendable {
    @Option(
        name: .customLong("negative-ttl"),
        help: ArgumentHelp(
            "Seconds a failed source is answered from the failure, with no origin request (0: off).", valueName: "SEC"))
    package var negativeTTL: Double = 10
    @Option(
        name: .customLong("negative-ttl-gone"),
        help: ArgumentHelp(
            "The same for a source the origin answered 404 or 410.", valueName: "SEC"))
    package var negativeTTLGone: Double = 60
    @Option(
        name: .customLong("fallback-on"),
        help: ArgumentHelp(
            "Failures the fallback image answers: any, or a list of 404, 4xx, 5xx, timeout, unreachable, invalid.",
            valueName: "LIST"))
    package var fallbackOn = "any"
    @Option(
        name: .customLong("fallback-header"),
        help: ArgumentHelp(
            "Header (value 1) on a fallback answer.", valueName: "NAME"))
    package var fallbackHeader = "X-Fallback"
    @Flag(name: .customLong("never-larger"), help: "Never answer more bytes than the source (as the nl:1 option).")
    package var neverLarger = false

    package init() {}
}
