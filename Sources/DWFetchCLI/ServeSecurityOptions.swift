// `dwfetch serve`'s security options: keys, result limits, bounded work, fetch hygiene, connections.
import ArgumentParser
import DWWebImage
import Foundation

/// The options that make `serve` safe to expose; docs/security.md lists each with its default.
/// Declared here (no server types: every dwfetch parses them); dwfetch-serve maps them onto the server's configuration
/// (ServeSecurityOptions+Configuration.swift), printing the key warnings. Parsed on the main thread.
package struct ServeSecurityOptions: ParsableArguments {
    /// Every flag at its default.
    package init() {}

    @Option(
        name: .customLong("key"),
        help: ArgumentHelp(
            "URL signature key (hex), as IMGPROXY_KEY; repeatable, paired in order with --salt (any pair is valid).",
            valueName: "HEX"))
    package var keys: [String] = []
    @Option(
        name: .customLong("salt"),
        help: ArgumentHelp(
            "URL signature salt (hex), as IMGPROXY_SALT; repeatable.",
            valueName: "HEX"))
    package var salts: [String] = []
    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "Key pairs, one KEY:SALT hex pair per line ('#' comments); keeps keys out of ps.", valueName: "FILE"))
    package var keyFile: String?
    @Option(
        name: .customLong("signature-size"),
        help: ArgumentHelp(
            "Bytes of the HMAC a URL signature holds (1-32; fewer: a truncated signature).", valueName: "N"))
    package var signatureSize = 32
    @Option(
        name: .customLong("trusted-signature"),
        help: ArgumentHelp(
            "A signature segment accepted as it is, without checking it (repeatable).", valueName: "SIGNATURE"))
    package var trustedSignatures: [String] = []
    @Option(
        name: .customLong("secret-file"),
        help: ArgumentHelp(
            "Ask every image and /info request for 'Authorization: Bearer' and the file's first line (403 otherwise; "
                + "IMGPROXY_SECRET holds the token itself).",
            valueName: "FILE"))
    package var secretFile: String?
    @Option(
        name: .customLong("info-key"),
        help: ArgumentHelp(
            "/info's own signature key (hex), paired with --info-salt; repeatable (default: /info is signed with "
                + "--key).",
            valueName: "HEX"))
    package var infoKeys: [String] = []
    @Option(
        name: .customLong("info-salt"),
        help: ArgumentHelp(
            "/info's own signature salt (hex); repeatable.",
            valueName: "HEX"))
    package var infoSalts: [String] = []
    @Flag(name: .customLong("no-info"), help: "Answer 404 to /info/… (imgproxy Pro's info endpoint).")
    package var noInfo = false
    @Flag(
        name: .customLong("allow-unsigned"),
        help: "Serve without a key on a non-loopback --host (any signature accepted).")
    package var allowUnsigned = false

    @Option(
        name: .customLong("max-result-dimension"),
        help: ArgumentHelp(
            "Largest result width or height (422 above).",
            valueName: "PX"))
    package var maxResultDimension = 8192
    @Option(
        name: .customLong("max-result-pixels"),
        help: ArgumentHelp(
            "Largest result frames × width × height (422 above).", valueName: "N"))
    package var maxResultPixels = 16_800_000
    @Option(
        name: .customLong("max-animation-frames"),
        help: ArgumentHelp(
            "Frames of an animation processed, the rest dropped (1 = the first frame, imgproxy's default). Default: by "
                + "budget, every frame while frames × result pixels fit --max-result-pixels, else the first frame and "
                + "X-Frames-Dropped.", valueName: "N"))
    package var maxAnimationFrames: Int?
    @Option(
        name: .customLong("render-budget"),
        help: ArgumentHelp(
            "CPU seconds one SVG rasterisation may use; then it is stopped (422).", valueName: "SEC"))
    package var renderBudget: Double = 5
    @Option(
        name: .customLong("source-formats"),
        help: ArgumentHelp(
            "Source formats decoded, comma-separated (known: \(Self.allSourceFormats); default: all but pnm, jp2 and "
                + "fits, "
                + "which libvips reads with untrusted loaders); others 422.",
            valueName: "LIST"))
    package var sourceFormats: String?

    @Option(help: ArgumentHelp("Transforms run at once, on their own threads (default: cores).", valueName: "N"))
    package var workers: Int?
    @Option(help: ArgumentHelp("Transforms waiting for a worker; more get 503 at once.", valueName: "N")) package
        var queue = 64
    @Option(
        name: .customLong("request-timeout"),
        help: ArgumentHelp(
            "Seconds an image request may take, waiting included (504 after).", valueName: "SEC"))
    package var requestTimeout: Double = 30
    @Option(
        name: .customLong("max-per-host"),
        help: ArgumentHelp(
            "Concurrent downloads from one origin host (default: half of -j).", valueName: "N"))
    package var maxPerHost: Int?

    @Option(
        help: ArgumentHelp(
            "Forward proxy for origin fetches (http://host:port); environment proxies are ignored.",
            valueName: "URL"))
    package var proxy: String?
    @Option(
        name: .customLong("cache-space"),
        help: ArgumentHelp(
            "Cache space under --cache-dir (never the CLI's).",
            valueName: "NAME"))
    package var cacheSpace = "serve"
    @Option(
        name: .customLong("cache-limit"),
        help: ArgumentHelp(
            "Disk budget of serve's cache space (K/M/G).",
            valueName: "BYTES"))
    package var cacheLimit = ByteCount(bytes: 1 << 30)
    @Flag(
        name: .customLong("no-disk-cache"),
        help: ArgumentHelp(
            "Memory cache only: nothing read from or written to disk (a source not in memory is fetched again)."))
    package var noDiskCache = false
    @Option(
        name: .customLong("source-min-uses"),
        help: ArgumentHelp(
            "Origin fetches of a source before its original is kept on disk (2: none fetched only once).",
            valueName: "N"))
    package var sourceMinUses = 1
    @Option(
        name: .customLong("cache-max-age"),
        help: ArgumentHelp(
            "Age at which cached entries are stale.",
            valueName: "SEC"))
    package var cacheMaxAge: Double = 7 * 24 * 3600

    @Option(
        name: .customLong("header-timeout"),
        help: ArgumentHelp(
            "Seconds a client may take to send a request head; then the connection closes.", valueName: "SEC"))
    package var headerTimeout: Double = 10
    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            "Seconds an idle keep-alive connection is kept.",
            valueName: "SEC"))
    package var idleTimeout: Double = 10
    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Client connections at once.", valueName: "N"))
    package var maxConnections = 1024
    @Option(
        name: .customLong("write-timeout"),
        help: ArgumentHelp(
            "Seconds a response's writes may make no progress (a client not reading); then the connection closes.",
            valueName: "SEC"))
    package var writeTimeout: Double = 10
    @Option(
        name: .customLong("max-connections-per-client"),
        help: ArgumentHelp(
            "Connections at once from one client address; more are closed at once (default: a quarter of "
                + "--max-connections, at least 2).", valueName: "N"))
    package var maxConnectionsPerClient: Int?
    @Option(
        name: .customLong("metrics-bind"),
        help: ArgumentHelp(
            "Serve /metrics here only (off when not given; the public port answers 404).", valueName: "HOST:PORT"))
    package var metricsBind: String?

    package func validate() throws {
        guard keys.count == salts.count else { throw ValidationError("--key and --salt go together, one salt per key") }
        guard infoKeys.count == infoSalts.count else {
            throw ValidationError("--info-key and --info-salt go together, one salt per key")
        }
        _ = try allowedSourceFormats()
        guard (1...32).contains(signatureSize) else { throw ValidationError("--signature-size must be 1-32") }
        guard renderBudget > 0, renderBudget.isFinite else { throw ValidationError("--render-budget must be positive") }
        guard maxResultDimension > 0, maxResultPixels > 0, (maxAnimationFrames ?? 1) > 0, (workers ?? 1) > 0,
            queue >= 0,
            requestTimeout > 0, (maxPerHost ?? 1) > 0, cacheLimit.bytes >= 0, sourceMinUses > 0, cacheMaxAge > 0,
            headerTimeout > 0,
            idleTimeout > 0, maxConnections > 0, writeTimeout > 0, (maxConnectionsPerClient ?? 1) > 0
        else {
            throw ValidationError("limits must be positive")
        }
        if let metricsBind, Self.hostPort(metricsBind) == nil {
            throw ValidationError("--metrics-bind takes HOST:PORT")
        }
        if cacheSpace.isEmpty { throw ValidationError("--cache-space must not be empty") }
    }

    /// Every source format serve reads, by name.
    package static let allSourceFormats = DWImageFormat.allCases.filter { $0 != .unknown }.map(\.rawValue)
        .joined(separator: ",")

    /// `--source-formats` as formats (any name a format goes by: `jpg`, `JPEG`); nil when not given.
    package func allowedSourceFormats() throws -> Set<DWImageFormat>? {
        guard let sourceFormats else { return nil }
        var formats: Set<DWImageFormat> = []
        for name in sourceFormats.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let format = DWImageFormat(name: name) else {
                throw ValidationError("--source-formats: unknown format \(name) (known: \(Self.allSourceFormats))")
            }
            formats.insert(format)
        }
        guard !formats.isEmpty else { throw ValidationError("--source-formats lists no format") }
        return formats
    }

    /// "127.0.0.1", "::1", "localhost" and the rest of 127/8.
    package static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// "HOST:PORT" or "[V6]:PORT".
    package static func hostPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        let host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host.isEmpty ? nil : (host, port)
    }
}
