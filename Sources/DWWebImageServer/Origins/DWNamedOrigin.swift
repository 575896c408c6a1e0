// DWNamedOrigin: one origin of `--origins FILE`, addressed as `NAME://PATH` — a base URL with its own request headers
// and allowed networks, or an S3 bucket prefix with its own endpoint and credentials.
import DWWebImage
import Foundation

/// A named origin: where `NAME://PATH` is fetched from and how. Sources name it, never the URL or bucket behind it,
/// so the cache, result storage, purge keys, logs, metrics and traces all carry `NAME://PATH`; the request headers and
/// credentials stay in this value and are sent only to this origin (``DWNamedOriginLoader``). A plain value, read on
/// any thread; its description redacts header values and credentials.
public struct DWNamedOrigin: Sendable, Equatable {
    /// Where the origin's objects are.
    public enum Location: Sendable, Equatable {
        /// `NAME://PATH` is `BASE/PATH` (`BASE` an http or https URL, kept without a trailing "/").
        case http(base: String)
        /// `NAME://PATH` is the object `PREFIX/PATH` in `bucket`, on the store `store` names and with its credentials.
        case s3(DWS3Location, store: DWS3Configuration)
    }

    /// The name sources use before `://` (lower-case letters, digits and "-"; `default` is the origin of sources
    /// without a scheme).
    public var name: String
    /// Where `NAME://PATH` is fetched.
    public var location: Location
    /// Headers sent with every request to this origin only (an API key, a Referer); an http origin's only.
    public var headers: [String: String]
    /// Networks this origin may be reached on besides public addresses (its own `allow_network`, added to
    /// `--allow-network`); an http origin's only.
    public var allowedNetworks: [DWCIDR]

    /// An origin; `name` is expected valid (``isValidName(_:)``).
    public init(name: String, location: Location, headers: [String: String] = [:], allowedNetworks: [DWCIDR] = []) {
        self.name = name
        self.location = location
        self.headers = headers
        self.allowedNetworks = allowedNetworks
    }

    /// The name of the origin of sources without a scheme (imgproxy's `IMGPROXY_BASE_URL`).
    public static let defaultName = "default"

    /// Schemes that keep their own meaning and so cannot name an origin.
    static let reservedNames: Set<String> = ["http", "https", "s3", "local", "file", "data", "dwfallback"]

    /// Whether `name` may name an origin: 1 to 63 of a–z, 0–9 and "-", starting with a letter, not a scheme serve
    /// already reads (`http`, `https`, `s3`, `local`, …).
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.utf8.count <= 63,
            !reservedNames.contains(name)
        else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// Where `path` (what follows `NAME://`, checked by ``DWNamedSource``) is fetched from: the http URL, or the s3
    /// location.
    func target(for path: String) -> String {
        let path = String(path.drop { $0 == "/" })
        switch location {
        case .http(let base): return base + "/" + path
        case .s3(let prefix, _): return prefix.appending(path).url
        }
    }
}

extension DWNamedOrigin {
    /// `NAME=BASE`, or `NAME=s3://BUCKET/PREFIX@ENDPOINT`: what the name means, without headers or credentials (the
    /// cache's policy marker holds it, so a name pointed elsewhere empties the cache).
    var place: String {
        switch location {
        case .http(let base): return "\(name)=\(base)"
        case .s3(let prefix, let store): return "\(name)=\(prefix.url)@\(store.endpoint)"
        }
    }
}

extension DWNamedOrigin: CustomStringConvertible {
    /// The name and where it points (an s3 store's configuration redacted as ``DWS3Configuration`` redacts it), the
    /// header names without their values: safe in a log line.
    public var description: String {
        let place: String
        switch location {
        case .http(let base): place = base
        case .s3(let prefix, let store): place = "\(prefix.url) on \(store.endpoint)"
        }
        let names = headers.keys.sorted().joined(separator: ",")
        return "\(name)://: \(place)" + (names.isEmpty ? "" : " (headers: \(names))")
    }
}

/// A source naming an origin, `NAME://PATH`, split and checked. Made on the caller's thread.
public struct DWNamedSource: Sendable, Equatable {
    /// The origin's name.
    public let name: String
    /// What follows `NAME://`.
    public let path: String

    /// `source` split at its `://` when the part before it is one of `names`; nil for any other source.
    public init?(_ source: String, names: Set<String>) {
        guard !names.isEmpty, let range = source.range(of: "://") else { return nil }
        let name = String(source[..<range.lowerBound])
        guard names.contains(name) else { return nil }
        self.name = name
        path = String(source[range.upperBound...])
    }

    /// Why the path cannot be fetched (a dot segment as written or percent-decoded, a backslash dot segment, a
    /// control byte, nothing to fetch); nil when it can. Such a path could leave the origin's base URL or prefix once
    /// a client, proxy or store normalises it, so none is ever sent.
    public var problem: String? {
        if path.isEmpty || path.allSatisfy({ $0 == "/" }) { return "names no object of origin '\(name)'" }
        if path.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "holds a control character" }
        let decoded = path.removingPercentEncoding ?? path
        let twice = decoded.removingPercentEncoding ?? decoded
        if [path, decoded, twice].contains(where: { DWS3Location.hasDotSegment($0) }) {
            return "holds a . or .. segment"
        }
        return nil
    }
}
