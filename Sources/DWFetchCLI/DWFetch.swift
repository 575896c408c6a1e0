// dwfetch: the command-line face of DWWebImage — fetch images through the manager and cache singletons.
import ArgumentParser
import DWWebImage
import Foundation

/// `dwfetch [options] URL...` and its subcommands (`serve`): the whole argument tree, parsed by every dwfetch
/// executable alike. Parsing runs on the main thread; ``FetchCommand`` runs a parsed fetch.
package struct DWFetch: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "dwfetch",
        abstract: "Download, validate and cache images over HTTP(S) with DWWebImage.",
        usage: """
            dwfetch [<options>] <url> ...
              dwfetch serve [<options>]
            """,
        discussion: """
            Each URL is fetched once (however often it is named), checked to be a real image, and kept in the \
            cache, so a second run is served from disk. Exit status: 0 all fetched, 1 any failed, 2 usage error.

            Examples:
              dwfetch https://example.com/cat.png
              dwfetch -j 8 -o out/ -i urls.txt --json > results.jsonl
              dwfetch --offline https://example.com/cat.png      # cache only
              dwfetch --demo                                       # offline demo on 127.0.0.1
              dwfetch serve --port 8080                            # the image proxy (dwfetch serve --help)
            """,
        version: VersionText.forParser(),  // read from the libraries at run time, only when --version asks
        subcommands: [ServeOptions.self, HealthCommand.self, WarmCommand.self])

    /// Every flag at its default.
    package init() {}

    @Argument(help: "Image URLs (http or https).")
    package var urls: [String] = []

    @Option(
        name: [.short, .customLong("input")],
        help: ArgumentHelp(
            "Read more URLs from FILE, one a line ('-' = stdin; blank lines and '#' comments skipped).",
            valueName: "FILE"))
    package var input: String?

    @Option(
        name: [.short, .customLong("output")],
        help: ArgumentHelp(
            "Write each image into DIR, or PUT it under s3://BUCKET/PREFIX (AWS_* credentials, --s3-endpoint).",
            valueName: "DIR"))
    package var output: String?

    @Option(
        name: .customLong("shard"),
        help: ArgumentHelp(
            "Take only the URLs whose digest falls in shard K of N (1 ≤ K ≤ N): N machines split one list.",
            valueName: "K/N"))
    package var shard: DWShard?

    @Option(
        name: .customLong("s3-endpoint"),
        help: ArgumentHelp(
            "S3-compatible endpoint for s3:// URLs and -o s3://, path-style (default: AWS's for AWS_REGION).",
            valueName: "URL"))
    package var s3Endpoint: String?

    @Option(name: [.short, .customLong("jobs")], help: ArgumentHelp("Concurrent downloads.", valueName: "N"))
    package var jobs: Int = 6

    @Option(
        name: .customLong("cache-dir"),
        help: ArgumentHelp(
            "Cache root (default $XDG_CACHE_HOME/dwwebimage, else ~/.cache/dwwebimage).", valueName: "DIR"))
    package var cacheDir: String?

    @Option(
        name: .customLong("cache-space"),
        help: ArgumentHelp("Cache space (a namespace under the root).", valueName: "NAME"))
    package var cacheSpace: String = "defaultCacheSpace"

    @Flag(name: .customLong("no-cache"), help: "Neither read nor write the cache.")
    package var noCache = false

    @Flag(help: "Ignore cached entries, download again, store the result.")
    package var refresh = false

    @Flag(help: "Cache only; a miss is error 10006.")
    package var offline = false

    @Option(help: ArgumentHelp("Retries after a failed attempt.", valueName: "N"))
    package var retries: Int = 3

    @Option(name: .customLong("retry-delay"), help: ArgumentHelp("Seconds between attempts.", valueName: "SEC"))
    package var retryDelay: Double = 3

    @Option(help: ArgumentHelp("Request timeout in seconds.", valueName: "SEC"))
    package var timeout: Double = 15

    @Option(
        name: .customLong("max-size"),
        help: ArgumentHelp(
            "Refuse bodies larger than this (bytes, or with a K, M or G suffix: powers of 1024, as curl).",
            valueName: "BYTES"))
    package var maxSize: ByteCount?

    @Option(
        name: .customLong("cacert"),
        help: ArgumentHelp("Trust the CA certificates in this PEM file (as curl).", valueName: "FILE"))
    package var caCert: String?

    @Option(
        name: .customLong("capath"),
        help: ArgumentHelp(
            "Trust the CA certificates in this hashed directory (openssl rehash).", valueName: "DIR"))
    package var caPath: String?

    @Option(
        name: .customLong("cert"),
        help: ArgumentHelp("Client certificate (PEM) for servers that ask.", valueName: "FILE"))
    package var cert: String?

    @Option(name: .customLong("key"), help: ArgumentHelp("Private key (PEM) of --cert.", valueName: "FILE"))
    package var key: String?

    @Option(
        name: .customLong("pinnedpubkey"),
        help: ArgumentHelp(
            "The server's public key must be this: sha256//BASE64 (';' between several) or a PEM/DER file.",
            valueName: "HASH"))
    package var pinnedPubKey: String?

    @Flag(
        name: [.customShort("k"), .customLong("insecure")], help: "Do not verify the server's certificate (as curl -k)."
    )
    package var insecure = false

    @Option(
        name: [.customShort("x"), .customLong("proxy")],
        help: ArgumentHelp(
            "Use this HTTP proxy (https through CONNECT); default: http_proxy, https_proxy, all_proxy.",
            valueName: "URL"))
    package var proxy: String?

    @Option(
        name: .customLong("noproxy"),
        help: ArgumentHelp(
            "Hosts to reach without the proxy, comma-separated ('*' = all); default: no_proxy.", valueName: "LIST"))
    package var noProxy: String?

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp(
            "Extra request header (repeatable).", valueName: "K: V"))
    package var headers: [String] = []

    @Flag(help: "One JSON object per URL on stdout, in input order.")
    package var json = false

    @Flag(
        name: [.short, .long],
        help: ArgumentHelp(
            "Print nothing for images fetched (no lines, progress or summary); failures still go to stderr. --json "
                + "lines are unaffected."))
    package var quiet = false

    @Flag(name: .customLong("clear-cache"), help: "Empty the cache space and exit.")
    package var clearCache = false

    @Flag(help: "Fetch a built-in sample set from an embedded loopback server, cold then warm.")
    package var demo = false

    @Option(
        name: .customLong("prefetch"),
        help: ArgumentHelp(
            "Also fetch the URLs in FILE at low priority (at most 2 at a time) while the others go first.",
            valueName: "FILE"))
    package var prefetch: String?

    @Flag(help: "Print a summary of the requests at the end (count by source, bytes, p50/p95 time).")
    package var stats = false

    @Option(
        name: .customLong("cache-limit"),
        help: ArgumentHelp(
            "Disk budget of the cache space (bytes, or with K, M or G; default 1G; 0 = none); least recently read "
                + "entries go first.",
            valueName: "BYTES"))
    package var cacheLimit: ByteCount?

    @Flag(
        name: .customLong("honor-cache-control"),
        help: ArgumentHelp(
            "Let responses' Cache-Control shorten how long entries stay fresh: no-store is not cached, no-cache and "
                + "expired max-age entries are revalidated (default: every entry lives the cache's 7 days)."))
    package var honorCacheControl = false

    @Flag(
        name: .customLong("cache-stats"),
        help: "Print the cache space's entries, bytes, oldest and newest entry, and exit.")
    package var cacheStats = false

    @Flag(help: "Remove expired cache entries (keeping revalidatable ones for a while) and exit.")
    package var expire = false

    @OptionGroup(title: "Pixels")
    package var processing: ProcessingOptions

    @OptionGroup(title: "Preview")
    package var preview: PreviewOptions

    package mutating func validate() throws {
        guard jobs >= 1 && jobs <= 256 else { throw ValidationError("--jobs must be between 1 and 256") }
        guard retries >= 0 && retries <= 100 else { throw ValidationError("--retries must be between 0 and 100") }
        guard retryDelay >= 0 else { throw ValidationError("--retry-delay must not be negative") }
        guard timeout >= 0 else { throw ValidationError("--timeout must not be negative") }
        if let maxSize, maxSize.bytes <= 0 { throw ValidationError("--max-size must be positive") }
        if [noCache, refresh, offline].filter({ $0 }).count > 1 {
            throw ValidationError("--no-cache, --refresh and --offline exclude each other")
        }
        for header in headers where Self.parseHeader(header) == nil {
            throw ValidationError("-H expects \"Name: value\", got \"\(header)\"")
        }
        if let output, output.lowercased().hasPrefix("s3://"), DWS3Location(output) == nil {
            throw ValidationError("-o s3:// expects s3://bucket[/prefix]")
        }
        if urls.isEmpty && input == nil && prefetch == nil && !clearCache && !demo && !cacheStats && !expire {
            throw ValidationError("no URL given (name URLs, or -i FILE, or --demo)")
        }
    }

    package static func parseHeader(_ text: String) -> (String, String)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" }),
            !value.contains(where: { $0 == "\r" || $0 == "\n" })
        else { return nil }
        return (name, value)
    }

    /// URLs from a file or stdin: one a line, blank lines and '#' comments skipped.
    package static func readURLList(_ path: String) throws -> [String] {
        let data =
            path == "-"
            ? FileHandle.standardInput.readDataToEndOfFile()
            : try Data(contentsOf: URL(fileURLWithPath: path))
        let bytes = [UInt8](data)
        if bytes.allSatisfy({ $0 < 0x80 }) {
            // ASCII (the usual list): split and trim on bytes ([UInt8], not Data, whose iterator is slow);
            // Foundation's trimming costs ~30 µs a line. The same lines as below: split at \n \v \f \r, trimmed
            // of spaces and tabs.
            return bytes.split(whereSeparator: { $0 >= 0x0A && $0 <= 0x0D }).compactMap { line -> String? in
                var slice = line[...]
                while let c = slice.first, c == 0x20 || c == 0x09 { slice.removeFirst() }
                while let c = slice.last, c == 0x20 || c == 0x09 { slice.removeLast() }
                guard let c = slice.first, c != 0x23 else { return nil }  // blank or '#'
                return String(decoding: slice, as: UTF8.self)
            }
        }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// The library options for one request.
    package var requestOptions: DWWebImageOptions {
        var options: DWWebImageOptions = []
        if noCache { options.insert(.noCache) }
        if refresh { options.insert(.refreshCached) }
        if offline { options.insert(.fromCacheOnly) }
        return options
    }

    /// The manager configuration these flags ask for.
    package func managerConfiguration(base: DWWebImageManager.Configuration) -> DWWebImageManager.Configuration {
        var configuration = base
        configuration.timeout = timeout
        configuration.retryCount = retries
        configuration.retryDelay = retryDelay
        if let maxSize { configuration.maxBodySize = maxSize.bytes }
        configuration.s3 = .fromEnvironment(endpoint: s3Endpoint)
        configuration.tls.caFile = caCert
        configuration.tls.caDirectory = caPath
        configuration.tls.clientCertificate = cert
        configuration.tls.clientKey = key
        configuration.tls.pinnedPublicKey = pinnedPubKey
        configuration.tls.insecure = insecure
        if let proxy { configuration.proxy = proxy }
        if let noProxy { configuration.noProxy = noProxy }
        for header in headers {
            if let (name, value) = Self.parseHeader(header) { configuration.requestHeaders[name] = value }
        }
        return configuration
    }
}
