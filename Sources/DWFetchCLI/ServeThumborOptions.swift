// ServeThumborOptions: `dwfetch serve`'s thumbor-dialect flags (declared here with ServeOptions, so every dwfetch
// executable parses them; dwfetch-serve maps them in ServeConfiguration+Thumbor.swift).
import ArgumentParser

/// `--thumbor-key`, `--thumbor-allow-unsafe`, `--thumbor-respect-orientation`, `--thumbor-preserve-exif`,
/// `--watermark-allow-host` (docs/thumbor.md). Parsed on the main thread.
package struct ServeThumborOptions: ParsableArguments {
    /// Every flag at its default.
    package init() {}

    @Option(
        name: .customLong("thumbor-key"),
        help: ArgumentHelp(
            "thumbor's SECURITY_KEY: serves thumbor URLs signed with it; repeatable (rotation); also "
                + "THUMBOR_SECURITY_KEY.",
            valueName: "KEY"))
    package var keys: [String] = []
    @Flag(
        name: .customLong("thumbor-allow-unsafe"),
        help: "Serve thumbor's /unsafe/… URLs (thumbor's ALLOW_UNSAFE_URL); off, they are 403.")
    package var allowUnsafe = false
    @Flag(
        name: .customLong("thumbor-respect-orientation"),
        help: "Apply the EXIF orientation to thumbor URLs (thumbor's RESPECT_ORIENTATION; off as in thumbor).")
    package var respectOrientation = false
    @Flag(
        name: .customLong("thumbor-preserve-exif"),
        help: "Keep the metadata in thumbor URLs' answers (thumbor's PRESERVE_EXIF_INFO; off as in thumbor).")
    package var preserveEXIF = false
    @Option(
        name: .customLong("watermark-allow-host"),
        help: ArgumentHelp(
            "A host thumbor's watermark() may fetch from (repeatable; *.example.com also allows its subdomains); none: "
                + "refused.",
            valueName: "HOST"))
    package var watermarkAllowHosts: [String] = []

    /// An empty key is refused.
    package func validate() throws {
        if keys.contains(where: \.isEmpty) { throw ValidationError("--thumbor-key must not be empty") }
        if watermarkAllowHosts.contains(where: { $0.isEmpty || $0.contains("/") || $0.contains(":") }) {
            throw ValidationError("--watermark-allow-host takes a host name (no scheme, port or path)")
        }
    }
}
