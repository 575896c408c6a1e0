// `dwfetch serve`'s security options (issue 22): keys, result limits, bounded work, fetch hygiene, connections.
import ArgumentParser
import DWWebImageServer
import Foundation

/// The options that make `serve` safe to expose; README "Security defaults" lists each with its default.
/// Parsed on the main thread before the server starts; ``apply(to:environment:)`` also prints the key warnings.
struct ServeSecurityOptions: ParsableArguments {
    @Option(name: .customLong("key"), help: ArgumentHelp(
        "URL signature key (hex), as IMGPROXY_KEY; repeatable, paired in order with --salt (any pair is valid).",
        valueName: "HEX"))
    var keys: [String] = []
    @Option(name: .customLong("salt"), help: ArgumentHelp("URL signature salt (hex), as IMGPROXY_SALT; repeatable.",
                                                          valueName: "HEX"))
    var salts: [String] = []
    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "Key pairs, one KEY:SALT hex pair per line ('#' comments); keeps keys out of ps.", valueName: "FILE"))
    var keyFile: String?
    @Flag(name: .customLong("allow-unsigned"), help: "Serve without a key on a non-loopback --host (any signature accepted).")
    var allowUnsigned = false

    @Option(name: .customLong("max-result-dimension"), help: ArgumentHelp("Largest result width or height (422 above).",
                                                                         valueName: "PX"))
    var maxResultDimension = 8192
    @Option(name: .customLong("max-result-pixels"), help: ArgumentHelp(
        "Largest result frames × width × height (422 above).", valueName: "N"))
    var maxResultPixels = 16_800_000
    @Option(name: .customLong("max-animation-frames"), help: ArgumentHelp(
        "Frames of an animation processed; the rest are dropped (1 = the first frame).", valueName: "N"))
    var maxAnimationFrames = 1

    @Option(help: ArgumentHelp("Image requests processed at once (default: cores).", valueName: "N")) var workers: Int?
    @Option(help: ArgumentHelp("Image requests waiting for a worker; more get 503 at once.", valueName: "N")) var queue = 64
    @Option(name: .customLong("request-timeout"), help: ArgumentHelp(
        "Seconds an image request may take, waiting included (504 after).", valueName: "SEC"))
    var requestTimeout: Double = 30
    @Option(name: .customLong("max-per-host"), help: ArgumentHelp(
        "Concurrent downloads from one origin host (default: half of -j).", valueName: "N"))
    var maxPerHost: Int?

    @Option(help: ArgumentHelp("Forward proxy for origin fetches (http://host:port); environment proxies are ignored.",
                               valueName: "URL"))
    var proxy: String?
    @Option(name: .customLong("cache-space"), help: ArgumentHelp("Cache space under --cache-dir (never the CLI's).",
                                                                valueName: "NAME"))
    var cacheSpace = "serve"
    @Option(name: .customLong("cache-limit"), help: ArgumentHelp("Disk budget of serve's cache space (K/M/G).",
                                                                valueName: "BYTES"))
    var cacheLimit = ByteCount(bytes: 1 << 30)
    @Option(name: .customLong("cache-max-age"), help: ArgumentHelp("Age at which cached entries are stale.",
                                                                  valueName: "SEC"))
    var cacheMaxAge: Double = 7 * 24 * 3600

    @Option(name: .customLong("header-timeout"), help: ArgumentHelp(
        "Seconds a client may take to send a request head; then the connection closes.", valueName: "SEC"))
    var headerTimeout: Double = 10
    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Seconds an idle keep-alive connection is kept.",
                                                                 valueName: "SEC"))
    var idleTimeout: Double = 10
    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Client connections at once.", valueName: "N"))
    var maxConnections = 1024
    @Option(name: .customLong("metrics-bind"), help: ArgumentHelp(
        "Serve /metrics here only (off when not given; the public port answers 404).", valueName: "HOST:PORT"))
    var metricsBind: String?

    func validate() throws {
        guard keys.count == salts.count else { throw ValidationError("--key and --salt go together, one salt per key") }
        guard maxResultDimension > 0, maxResultPixels > 0, maxAnimationFrames > 0, (workers ?? 1) > 0, queue >= 0,
              requestTimeout > 0, (maxPerHost ?? 1) > 0, cacheLimit.bytes >= 0, cacheMaxAge > 0, headerTimeout > 0,
              idleTimeout > 0, maxConnections > 0 else {
            throw ValidationError("limits must be positive")
        }
        if let metricsBind, Self.hostPort(metricsBind) == nil { throw ValidationError("--metrics-bind takes HOST:PORT") }
        if cacheSpace.isEmpty { throw ValidationError("--cache-space must not be empty") }
    }

    /// Fills `configuration` (whose `host` and `jobs` are already set). Throws a ValidationError for unusable keys or
    /// an unsigned non-loopback listener; writes one warning line to stderr per short key, and one when unsigned.
    func apply(to configuration: inout DWServeConfiguration,
               environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let pairs = try keyPairs(environment: environment)
        var signers: [DWURLSigner] = []
        for (key, salt) in pairs {
            guard let signer = DWURLSigner(keyHex: key, saltHex: salt) else {
                throw ValidationError("keys and salts must be hex (and a key not empty)")
            }
            if key.count / 2 < 32 { warn("a signature key is \(key.count / 2) bytes; use at least 32 random bytes") }
            signers.append(signer)
        }
        if signers.isEmpty {
            guard Self.isLoopback(configuration.host) || allowUnsigned else {
                throw ValidationError("no --key: refusing to listen on \(configuration.host) unsigned; "
                                      + "give a key, or --allow-unsigned")
            }
            warn("no signature key: any signature is accepted (insecure)")
        }
        configuration.signers = signers
        var limits = DWResultLimits()
        limits.maxDimension = maxResultDimension
        limits.maxPixels = maxResultPixels
        limits.maxAnimationFrames = maxAnimationFrames
        configuration.resultLimits = limits
        if let workers { configuration.workers = workers }
        configuration.queue = queue
        configuration.requestTimeout = requestTimeout
        configuration.maxPerHost = maxPerHost
        configuration.proxy = proxy
        configuration.cacheSpace = cacheSpace
        configuration.cacheLimit = cacheLimit.bytes
        configuration.cacheMaxAge = cacheMaxAge
        configuration.headerTimeout = headerTimeout
        configuration.idleTimeout = idleTimeout
        configuration.maxConnections = maxConnections
        configuration.metricsBind = metricsBind.flatMap(Self.hostPort)
    }

    /// Key/salt pairs from --key/--salt, IMGPROXY_KEY/IMGPROXY_SALT (comma-separated, paired in order) and --key-file.
    func keyPairs(environment: [String: String]) throws -> [(String, String)] {
        var pairs = Array(zip(keys, salts))
        let split = { (name: String) in
            (environment[name] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let envKeys = split("IMGPROXY_KEY"), envSalts = split("IMGPROXY_SALT")
        guard envKeys.count == envSalts.count else {
            throw ValidationError("IMGPROXY_KEY and IMGPROXY_SALT must list as many values")
        }
        pairs += zip(envKeys, envSalts)
        if let keyFile {
            guard let text = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
                throw ValidationError("cannot read --key-file \(keyFile)")
            }
            for line in text.split(whereSeparator: \.isNewline) {
                let line = line.trimmingCharacters(in: .whitespaces)
                if line.isEmpty || line.hasPrefix("#") { continue }
                let parts = line.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2 else { throw ValidationError("--key-file lines are KEY:SALT (hex)") }
                pairs.append((String(parts[0]), String(parts[1])))
            }
        }
        return pairs
    }

    private func warn(_ text: String) {
        FileHandle.standardError.write(Data("dwfetch serve: warning: \(text)\n".utf8))
    }

    /// "127.0.0.1", "::1", "localhost" and the rest of 127/8.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// "HOST:PORT" or "[V6]:PORT".
    static func hostPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65535).contains(port) else { return nil }
        let host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host.isEmpty ? nil : (host, port)
    }
}
