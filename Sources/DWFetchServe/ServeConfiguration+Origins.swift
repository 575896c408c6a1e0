// ServeConfiguration+Origins: `dwfetch serve --origins FILE` (DWFetchCLI/ServeOriginOptions.swift) read with TOMLKit
// into DWNamedOrigin values, credentials taken from the environment variables the file names.
import ArgumentParser
import DWFetchCLI
import DWWebImage
import DWWebImageServer
import Foundation
import TOMLKit

/// The grammar of `--origins FILE`: `[origins.NAME]` tables, each with `url`, or `s3` and its store's `endpoint`,
/// `region`, `access_key_id_env` and `secret_access_key_env`; `headers` and `allow_network` for a `url` origin. Every
/// mistake (an unknown key, a wrong type, a missing variable) is a ValidationError naming it (exit 2). On the main
/// thread, before the start.
enum OriginsFile {
    private static let urlKeys: Set<String> = ["url", "headers", "allow_network"]
    private static let s3Keys: Set<String> = ["s3", "endpoint", "region", "access_key_id_env", "secret_access_key_env"]
    /// Headers the pipeline sets itself (framing, ranges, validators) or that would send the request elsewhere.
    private static let reservedHeaders: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "range", "if-range", "if-none-match",
        "if-modified-since", "te", "upgrade", "expect"
    ]

    /// The origins `options` name (none without `--origins`); `baseURL` is `--base-url` (or `IMGPROXY_BASE_URL`),
    /// which `[origins.default]` may not be given with.
    static func origins(
        _ options: ServeOriginOptions, baseURL: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> [DWNamedOrigin] {
        guard let path = options.originsFile else { return [] }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("--origins: cannot read \(path)")
        }
        let origins = try parse(text, environment: environment, file: path)
        if origins.contains(where: { $0.name == DWNamedOrigin.defaultName }), let baseURL, !baseURL.isEmpty {
            throw ValidationError(
                "--origins \(path): [origins.default] and --base-url (IMGPROXY_BASE_URL) both say "
                    + "where sources without a scheme come from: give one")
        }
        return origins
    }

    /// The origins of a file's `text`.
    static func parse(_ text: String, environment: [String: String], file: String) throws -> [DWNamedOrigin] {
        let root: TOMLTable
        do { root = try TOMLTable(string: text) } catch let error as TOMLParseError {
            throw ValidationError("--origins \(file): not TOML: \(error.description) (\(error.source.begin))")
        }
        for key in root.keys where key != "origins" {
            throw ValidationError("--origins \(file): unknown key '\(key)' (only [origins.NAME] tables)")
        }
        guard let table = root["origins"]?.table, !table.isEmpty else {
            throw ValidationError("--origins \(file): no [origins.NAME] table")
        }
        return try table.keys.sorted().map { name in
            guard DWNamedOrigin.isValidName(name) else {
                throw ValidationError(
                    "--origins \(file): '\(name)' is not an origin name (a-z, 0-9 and -, starting "
                        + "with a letter, not http, https, s3 or local)")
            }
            guard let entry = table[name]?.table else {
                throw ValidationError("--origins \(file): origins.\(name) is not a table")
            }
            return try origin(name, entry, environment: environment, context: "--origins \(file): [origins.\(name)]")
        }
    }

    /// One `[origins.NAME]` table.
    private static func origin(_ name: String, _ entry: TOMLTable, environment: [String: String], context: String)
        throws -> DWNamedOrigin
    {
        let keys = Set(entry.keys)
        if let unknown = keys.subtracting(urlKeys).subtracting(s3Keys).sorted().first {
            throw ValidationError("\(context): unknown key '\(unknown)'")
        }
        func string(_ key: String) throws -> String? {
            guard let value = entry[key] else { return nil }
            guard let text = value.string, !text.isEmpty else {
                throw ValidationError("\(context): \(key) is not a string")
            }
            return text
        }
        switch (try string("url"), try string("s3")) {
        case (let url?, nil):
            if let key = keys.intersection(s3Keys).sorted().first {
                throw ValidationError("\(context): \(key) is for an s3 origin, not a url one")
            }
            return DWNamedOrigin(
                name: name, location: .http(base: try base(url, context: context)),
                headers: try headers(entry["headers"], context: context),
                allowedNetworks: try networks(entry["allow_network"], context: context))
        case (nil, let s3?):
            if let key = keys.intersection(urlKeys).sorted().first {
                throw ValidationError(
                    "\(context): \(key) is for a url origin (an s3 origin's requests are signed and "
                        + "go to its endpoint only)")
            }
            guard let prefix = DWS3Location(s3) else {
                throw ValidationError("\(context): s3 is not s3://BUCKET/PREFIX")
            }
            let endpoint = try string("endpoint")
            if let endpoint, !(endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://")) {
                throw ValidationError("\(context): endpoint is not an http(s) URL")
            }
            let store = DWS3Configuration(
                endpoint: endpoint, region: try string("region") ?? "us-east-1",
                accessKeyID: try variable(try string("access_key_id_env"), environment, context: context),
                secretAccessKey: try variable(try string("secret_access_key_env"), environment, context: context))
            guard (store.accessKeyID == nil) == (store.secretAccessKey == nil) else {
                throw ValidationError("\(context): access_key_id_env and secret_access_key_env go together")
            }
            return DWNamedOrigin(name: name, location: .s3(prefix, store: store))
        default:
            throw ValidationError("\(context): give url, or s3 (one of them)")
        }
    }

    /// A url origin's base: http(s), a host, no user:password, query or fragment; without its trailing "/".
    private static func base(_ url: String, context: String) throws -> String {
        guard let components = URLComponents(string: url), ["http", "https"].contains(components.scheme?.lowercased()),
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil,
            components.query == nil, components.fragment == nil
        else {
            throw ValidationError("\(context): url is not an http(s) URL with a host (and no user, query or fragment)")
        }
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }

    /// The value of the environment variable `name` (nil when no name is given); a name given but not set (or set
    /// empty) is an error naming it. The value never appears in an error.
    private static func variable(_ name: String?, _ environment: [String: String], context: String) throws -> String? {
        guard let name else { return nil }
        guard let value = environment[name], !value.isEmpty else {
            throw ValidationError("\(context): the environment variable \(name) is not set")
        }
        return value
    }

    /// `headers = { Name = "value", … }`: header names as HTTP tokens, values without CR, LF or NUL, none the
    /// pipeline sets itself.
    private static func headers(_ value: (any TOMLValueConvertible)?, context: String) throws -> [String: String] {
        guard let value else { return [:] }
        guard let table = value.table else { throw ValidationError("\(context): headers is not a table") }
        let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var headers: [String: String] = [:]
        for name in table.keys {
            guard !name.isEmpty, name.allSatisfy({ token.contains($0) }) else {
                throw ValidationError("\(context): '\(name)' is not a header name")
            }
            guard !reservedHeaders.contains(name.lowercased()) else {
                throw ValidationError("\(context): the header \(name) is the pipeline's own")
            }
            guard let text = table[name]?.string, !text.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
            else { throw ValidationError("\(context): the header \(name) is not a one-line string") }
            headers[name] = text
        }
        return headers
    }

    /// `allow_network = ["CIDR", …]`.
    private static func networks(_ value: (any TOMLValueConvertible)?, context: String) throws -> [DWCIDR] {
        guard let value else { return [] }
        guard let array = value.array else { throw ValidationError("\(context): allow_network is not an array") }
        return try array.map { item in
            guard let text = item.string, let cidr = DWCIDR(text) else {
                throw ValidationError("\(context): allow_network holds something that is not a CIDR")
            }
            return cidr
        }
    }
}
