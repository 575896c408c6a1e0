// TransferRequest: what the transfer engine is asked to do (its outcome: TransferResult.swift).
import Foundation

/// One HTTP GET for the transfer engine.
///
/// A value with its fields in one shared box, copied on the first write (as Array is): a request is copied several
/// times a download (into its context, each attempt, each transfer and hop), and a copy of the fields themselves is
/// some twenty retains and releases. Read and write the fields as if they were the struct's own
/// (`request.headers += …`).
@dynamicMemberLookup
struct TransferRequest: Sendable {
    /// The request's fields.
    struct Fields: Sendable {
        /// An ASCII URL (see ``URLValidator``).
        var url: String
        /// Extra request header lines, `"Name: value"`.
        var headers: [String] = []
        /// Whole-request limit in seconds (CURLOPT_TIMEOUT_MS); 0 = none.
        var timeout: TimeInterval
        /// Connection set-up limit in seconds.
        var connectTimeout: TimeInterval
        /// Stall detection: fail when fewer than 1 byte/s arrives for this many seconds; 0 = off.
        var stallTimeout: TimeInterval
        /// Largest body accepted, in bytes; nil = no limit.
        var maxBodySize: Int64?
        /// Redirects followed at most (libcurl 7.88.1's default is unlimited).
        var maxRedirects: Int
        /// User-Agent header.
        var userAgent: String
        /// `CURLOPT_ACCEPT_ENCODING`: "" offers every coding libcurl decodes (gzip, deflate, br, zstd here) and the
        /// body callbacks see decoded bytes; "identity" for Range requests (a coded range cannot be appended).
        var acceptEncoding = ""
        /// TLS trust and client identity.
        var tls: DWWebImageManager.Configuration.TLS
        /// `CURLOPT_PROXY` and `CURLOPT_NOPROXY`; nil leaves libcurl's environment rules.
        var proxy: String?
        var noProxy: String?
        /// Asked before every connection is opened (see ``DWWebImageManager/Configuration/connectionPolicy``).
        var connectionPolicy: DWConnectionPolicy?
        /// S3 signing: `CURLOPT_AWS_SIGV4`'s provider ("aws:amz:REGION:s3") and `CURLOPT_USERPWD` ("key:secret");
        /// nil sends the request unsigned.
        var awsSigV4: (provider: String, userPassword: String)?
        /// Send the path exactly as built (`CURLOPT_PATH_AS_IS`): S3 keys, so libcurl never removes a dot segment
        /// from a key and signs a path other than the one the key names.
        var pathAsIs = false
        /// The app's request modifiers and redirect handlers (see ``RequestHooks``).
        var hooks = RequestHooks()
        /// Loads the body instead of libcurl (a file, a `data:` URL, an app's store); `url` is then the caller's
        /// string.
        var loader: (any DWImageLoader)?

        /// A GET of `url` with `configuration`'s limits, User-Agent, trust, proxy and connection policy (the one
        /// place they are defaulted); no headers, hooks or loader.
        init(url: String, configuration c: DWWebImageManager.Configuration) {
            self.url = url
            (timeout, connectTimeout, stallTimeout) = (c.timeout, c.connectTimeout, c.stallTimeout)
            (maxBodySize, maxRedirects, userAgent, tls) = (c.maxBodySize, c.maxRedirects, c.userAgent, c.tls)
            // An explicit proxy with no exceptions given: "" keeps libcurl from reading `no_proxy` around it.
            (proxy, noProxy) = (c.proxy, c.noProxy ?? (c.proxy?.isEmpty == false ? "" : nil))
            connectionPolicy = c.connectionPolicy
        }
    }

    /// Holds the fields; written only while uniquely referenced (copy-on-write), so never while shared.
    private final class Box: @unchecked Sendable {
        // @unchecked: `fields` is mutated only through TransferRequest's setter after isKnownUniquelyReferenced,
        // i.e. while no other value (and so no other thread) can reach this box. For the same reason no access to it
        // overlaps another, and the runtime's dynamic exclusivity check is off (`swift_beginAccess` on every read).
        @exclusivity(unchecked) var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    /// A GET of `url` under `configuration` (default: ``DWWebImageManager/Configuration``'s defaults).
    init(url: String, configuration: DWWebImageManager.Configuration = DWWebImageManager.Configuration()) {
        box = Box(Fields(url: url, configuration: configuration))
    }

    /// Whether an easy handle configured for `other` already has every option `CurlMulti` would set for this
    /// request apart from the transfer's own (URL, headers, coding, callback pointers): limits, User-Agent,
    /// redirects, TLS, proxy, the scheme's buffer and pipelining choices. Then the pooled handle keeps its options
    /// (libcurl keeps every option between transfers) instead of a `curl_easy_reset` and some twenty options set
    /// again, five of them strings libcurl copies. A request signed for S3 never matches (its credentials are not
    /// compared). Read in place: through the key-path subscript each field read copied all of them.
    func setsSameHandleOptions(as other: TransferRequest) -> Bool {
        let (a, b) = (box, other.box)  // each field read through the boxes (a copy of `fields` is ~20 retains)
        return a.fields.awsSigV4 == nil && b.fields.awsSigV4 == nil
            && a.fields.hooks.followsRedirects == b.fields.hooks.followsRedirects
            && a.fields.maxRedirects == b.fields.maxRedirects && a.fields.connectTimeout == b.fields.connectTimeout
            && a.fields.timeout == b.fields.timeout && a.fields.stallTimeout == b.fields.stallTimeout
            && a.fields.userAgent == b.fields.userAgent && Self.isHTTPS(a.fields.url) == Self.isHTTPS(b.fields.url)
            && a.fields.tls == b.fields.tls && a.fields.proxy == b.fields.proxy && a.fields.noProxy == b.fields.noProxy
            && a.fields.pathAsIs == b.fields.pathAsIs
            && (a.fields.connectionPolicy == nil) == (b.fields.connectionPolicy == nil)
    }

    /// Whether `url` is an https URL (ASCII, any case).
    static func isHTTPS(_ url: String) -> Bool {
        func test(_ b: UnsafeBufferPointer<UInt8>) -> Bool {  // on the bytes: a UTF8View iterator costs ~300 a call
            b.count >= 6 && b[0] | 0x20 == 0x68 && b[1] | 0x20 == 0x74 && b[2] | 0x20 == 0x74
                && b[3] | 0x20 == 0x70 && b[4] | 0x20 == 0x73 && b[5] == 0x3A
        }
        var url = url
        return url.withUTF8(test)
    }

    /// The field at `key`; a write copies the fields first when another value shares them.
    subscript<Value>(dynamicMember key: WritableKeyPath<Fields, Value>) -> Value {
        get { box.fields[keyPath: key] }
        set {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
            box.fields[keyPath: key] = newValue
        }
    }
}
