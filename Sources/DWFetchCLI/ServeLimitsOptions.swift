// ServeLimitsOptions: `dwfetch serve`'s per-client limits — the cold budget, the Referer guard, the POST /info batch
// size (declared with ServeOptions; dwfetch-serve maps them in ServeConfiguration+Limits.swift).
import ArgumentParser

/// `--cold-rate`, `--cold-burst`, `--limit-by`, `--allow-referer`, `--max-batch` (docs/serving.md). Parsed on the
/// main thread.
package struct ServeLimitsOptions: ParsableArguments, Sendable {
    /// Every flag at its default.
    package init() {}

    @Option(
        name: .customLong("cold-rate"),
        help: ArgumentHelp(
            "Per client, cold requests (an origin fetch or a transform; cache hits are free) per second, e.g. 5/s; "
                + "over it: 429 with Retry-After.", valueName: "N/s"))
    package var coldRate: String?
    @Option(
        name: .customLong("cold-burst"),
        help: ArgumentHelp(
            "Cold requests a client may make at once (the bucket's size).", valueName: "M"))
    package var coldBurst = 10
    @Option(
        name: .customLong("limit-by"),
        help: ArgumentHelp(
            "Whose budget a request is charged to: ip (the connection's address) or key (the --key that signed it).",
            valueName: "ip|key"))
    package var limitBy = "ip"
    @Option(
        name: .customLong("allow-referer"),
        help: ArgumentHelp(
            "A host (or *.suffix) whose pages may embed the images; repeatable. Another Referer: 403; none: allowed.",
            valueName: "HOST"))
    package var allowReferers: [String] = []
    @Option(
        name: .customLong("max-batch"),
        help: ArgumentHelp(
            "Most sources in one POST /info; more: 413.", valueName: "N"))
    package var maxBatch = 50

    /// The cold rate in requests per second: `N`, `N/s` or `N/m` (a minute); nil when unset.
    package func coldRatePerSecond() throws -> Double? {
        guard var text = coldRate?.lowercased() else { return nil }
        var divisor = 1.0
        if text.hasSuffix("/s") {
            text.removeLast(2)
        } else if text.hasSuffix("/m") {
            text.removeLast(2)
            divisor = 60
        }
        guard let value = Double(text), value.isFinite, value > 0 else {
            throw ValidationError("--cold-rate is a positive number per second (5/s) or minute (30/m)")
        }
        return value / divisor
    }

    /// The numbers are positive, `--limit-by` is ip or key, `--cold-rate` parses.
    package func validate() throws {
        _ = try coldRatePerSecond()
        guard (1...1_000_000).contains(coldBurst) else { throw ValidationError("--cold-burst is 1 to 1000000") }
        guard limitBy == "ip" || limitBy == "key" else { throw ValidationError("--limit-by is ip or key") }
        guard (1...1000).contains(maxBatch) else { throw ValidationError("--max-batch is 1 to 1000") }
        if allowReferers.contains(where: { $0.isEmpty || $0.contains("/") }) {
            throw ValidationError("--allow-referer takes a host name (or *.suffix), not a URL")
        }
    }
}
