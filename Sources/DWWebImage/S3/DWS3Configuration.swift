// DWS3Configuration: where `s3://bucket/key` URLs go and how they are signed (SigV4 by libcurl, no SDK).
import Foundation

/// An S3-compatible store: its endpoint, region and credentials. `s3://bucket/key` maps to the path-style URL
/// `{endpoint}/bucket/key` (what MinIO, Ceph RGW, R2 and test servers expect; AWS accepts it too), and every request
/// is signed by libcurl (`CURLOPT_AWS_SIGV4` "aws:amz:REGION:s3" with `CURLOPT_USERPWD` key:secret). A value type,
/// read on whichever thread builds a request.
public struct DWS3Configuration: Sendable, Equatable, Hashable {
    /// The store's base URL, `http(s)://host[:port]`, no trailing slash. Default: AWS's regional endpoint.
    public var endpoint: String
    /// The signing region (`AWS_REGION`, default "us-east-1").
    public var region: String
    /// `AWS_ACCESS_KEY_ID`; nil sends requests unsigned (public buckets).
    public var accessKeyID: String?
    /// `AWS_SECRET_ACCESS_KEY`.
    public var secretAccessKey: String?
    /// `AWS_SESSION_TOKEN` (temporary credentials), sent as `x-amz-security-token` and signed with the rest.
    public var sessionToken: String?

    /// A configuration; a nil endpoint means AWS's regional one for `region`.
    public init(
        endpoint: String? = nil, region: String = "us-east-1", accessKeyID: String? = nil,
        secretAccessKey: String? = nil, sessionToken: String? = nil
    ) {
        self.region = region
        var base = endpoint ?? "https://s3.\(region).amazonaws.com"
        while base.hasSuffix("/") { base.removeLast() }
        self.endpoint = base
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// Read as every S3 tool reads them: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
    /// `AWS_REGION` (else `AWS_DEFAULT_REGION`, else us-east-1); `endpoint` overrides the regional default.
    /// `environment`: the variables to read instead of the process's (nil: the process's, read with `getenv`, not
    /// through `ProcessInfo.environment`, which copies every variable into a dictionary first: ~0.4 M instructions
    /// in a shell's environment, and a run reads this three times).
    public static func fromEnvironment(
        _ environment: [String: String]? = nil,
        endpoint: String? = nil
    ) -> DWS3Configuration {
        func value(_ name: String) -> String? {
            let found = environment.map { $0[name] } ?? getenv(name).map { String(cString: $0) }
            return found.flatMap { $0.isEmpty ? nil : $0 }
        }
        return DWS3Configuration(
            endpoint: endpoint,
            region: value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1",
            accessKeyID: value("AWS_ACCESS_KEY_ID"),
            secretAccessKey: value("AWS_SECRET_ACCESS_KEY"),
            sessionToken: value("AWS_SESSION_TOKEN"))
    }

    /// Whether requests are signed (an access key and a secret are both set).
    public var signs: Bool { accessKeyID != nil && secretAccessKey != nil }

    /// The path-style HTTP URL of `key` in `bucket`, the key percent-encoded as SigV4's canonical URI wants it
    /// (every byte but unreserved characters and "/"). A `.` or `..` segment (which ``DWS3Location`` never parses)
    /// is sent as `%2E`s, so no path normalisation can take the request out of `bucket`.
    public func httpURL(bucket: String, key: String) -> String {
        "\(endpoint)/\(bucket)/\(Self.encodeKey(key))"
    }

    /// `CURLOPT_AWS_SIGV4`'s provider string, or nil when unsigned.
    var sigV4Provider: String? { signs ? "aws:amz:\(region):s3" : nil }
    /// `CURLOPT_USERPWD`, or nil when unsigned.
    var userPassword: String? {
        guard let accessKeyID, let secretAccessKey else { return nil }
        return "\(accessKeyID):\(secretAccessKey)"
    }

    /// The headers S3 wants on a signed request and libcurl 7.88 does not add: the payload's SHA-256 (hex) and the
    /// session token. libcurl signs every header it is given, these included.
    func signingHeaders(payloadSHA256: String = DWS3Configuration.emptyPayloadSHA256) -> [String] {
        guard signs else { return [] }
        var lines = ["x-amz-content-sha256: \(payloadSHA256)"]
        if let sessionToken { lines.append("x-amz-security-token: \(sessionToken)") }
        return lines
    }

    /// SHA-256 of the empty body (every GET), hex.
    public static let emptyPayloadSHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// SHA-256 of `data`, lowercase hex (the `x-amz-content-sha256` of a PUT).
    public static func sha256Hex(_ data: Data) -> String {
        DWDigest.sha256Hex(data)
    }

    /// S3's unreserved characters and `/`: what keys and query values keep as they are.
    static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8)

    static func encodeKey(_ key: String) -> String {
        key.split(separator: "/", omittingEmptySubsequences: false).map(encodeSegment).joined(separator: "/")
    }

    /// One segment of a key: a `.` or `..` segment as `%2E`s, else every byte but unreserved ones escaped.
    private static func encodeSegment(_ segment: Substring) -> String {
        if segment == "." || segment == ".." { return String(repeating: "%2E", count: segment.count) }
        return PercentEncoding.encode(segment) { unreserved.contains($0) }
    }
}

/// A parsed `s3://bucket/key` URL.
public struct DWS3Location: Sendable, Equatable, Hashable {
    /// The bucket (DNS-style name: 3–63 of a–z, 0–9, ".", "-").
    public var bucket: String
    /// The object key (or a prefix), without a leading "/"; may be empty for a bare `s3://bucket`.
    public var key: String

    /// A location from parts.
    public init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// Parses `s3://bucket/key`; nil when the string is not an s3 URL, the bucket name is not valid, or the key,
    /// once its percent escapes are decoded, has a `.` or `..` segment (such a key could name an object of another
    /// bucket once a path is normalised, so none is ever built). The key is taken as written, escapes decoded once.
    public init?(_ url: String) {
        guard url.utf8.count > 5, url.hasASCIIPrefixIgnoringCase("s3://") else { return nil }
        let rest = url.dropFirst(5)
        let bucket = rest.prefix { $0 != "/" }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-")
        guard (3...63).contains(bucket.count), bucket.allSatisfy({ allowed.contains($0) }) else { return nil }
        var key = String(rest.dropFirst(bucket.count))
        if key.hasPrefix("/") { key.removeFirst() }
        let decoded = key.removingPercentEncoding ?? key
        guard !Self.hasDotSegment(decoded) else { return nil }
        self.bucket = String(bucket)
        self.key = decoded
    }

    /// Whether `key` has a `.` or `..` path segment (split on "/"; a backslash separates too, as some stores
    /// and proxies read it).
    public static func hasDotSegment(_ key: String) -> Bool {
        key.split(separator: "/", omittingEmptySubsequences: false).contains { part in
            part.split(separator: "\\", omittingEmptySubsequences: false).contains { $0 == "." || $0 == ".." }
        }
    }

    /// `s3://bucket/key`.
    public var url: String { key.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(key)" }

    /// This location with `name` appended to its key as a path component ("prefix/name", or "name" at the root).
    public func appending(_ name: String) -> DWS3Location {
        let base = key.isEmpty || key.hasSuffix("/") ? key : key + "/"
        return DWS3Location(bucket: bucket, key: base + name)
    }
}

extension TransferRequest {
    /// Makes this request one to the S3 store: signed by libcurl when credentials are set, with the headers S3
    /// wants; no connection policy (the endpoint is configuration, not input) and no redirects.
    mutating func signForS3(_ s3: DWS3Configuration, payloadSHA256: String = DWS3Configuration.emptyPayloadSHA256) {
        if let provider = s3.sigV4Provider, let userPassword = s3.userPassword {
            self.awsSigV4 = (provider, userPassword)
        }
        self.headers += s3.signingHeaders(payloadSHA256: payloadSHA256)
        self.connectionPolicy = nil
        self.maxRedirects = 0
        self.pathAsIs = true
    }
}

extension DWS3Configuration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The endpoint and region; the access key ID masked to its last four characters, the secret and the session
    /// token only said to be set: a configuration interpolated into a log line never leaks a credential.
    public var description: String {
        "DWS3Configuration(endpoint: \(endpoint), region: \(region), accessKeyID: \(Self.masked(accessKeyID)), "
            + "secretAccessKey: \(Self.redacted(secretAccessKey)), sessionToken: \(Self.redacted(sessionToken)))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump` and debuggers show: the fields of ``description``, redacted the same way.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "endpoint": endpoint, "region": region, "accessKeyID": Self.masked(accessKeyID),
                "secretAccessKey": Self.redacted(secretAccessKey),
                "sessionToken": Self.redacted(sessionToken)
            ],
            displayStyle: .struct)
    }

    private static func redacted(_ value: String?) -> String { value == nil ? "nil" : "<redacted>" }

    private static func masked(_ value: String?) -> String {
        guard let value else { return "nil" }
        return value.count > 8 ? "…" + value.suffix(4) : "<redacted>"
    }
}
