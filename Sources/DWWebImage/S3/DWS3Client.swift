// DWS3Client: single S3 object requests (GET, PUT, DELETE, LIST) signed by libcurl, for the S3 cache tier
// (serve's result storage) and `dwfetch -o s3://`.
import Foundation
internal import CCurlShim

/// Reads and writes whole objects in an S3-compatible store with one blocking libcurl easy transfer each (SigV4 by
/// libcurl, as ``DWS3Configuration`` describes). Images fetched as *sources* go through ``DWWebImageManager``
/// instead (coalesced, cached, resumable); this is for the small requests around them. Each call blocks its caller's
/// thread until the store answers or `timeout` passes; the async forms run that on a global dispatch queue. Holds no
/// mutable state: safe from any thread.
public struct DWS3Client: Sendable {
    /// The store and its credentials.
    public let configuration: DWS3Configuration
    /// Whole-request limit, seconds.
    public var timeout: TimeInterval
    /// Largest object body read by ``get(_:)``, bytes.
    public var maxBodySize: Int
    /// The proxy requests go through (`CURLOPT_PROXY`): nil reads libcurl's environment (`https_proxy`, …) as curl
    /// does; "" sends every request direct, whatever the environment says (what a server wants).
    public var proxy: String?

    /// A client of the store `configuration` names.
    public init(
        configuration: DWS3Configuration, timeout: TimeInterval = 10, maxBodySize: Int = 200 << 20,
        proxy: String? = nil
    ) {
        CurlGlobal.initialize()
        self.configuration = configuration
        self.timeout = timeout
        self.maxBodySize = maxBodySize
        self.proxy = proxy
    }

    /// What a request failed with: the HTTP status the store answered (e.g. 403 for a wrong signature), or a
    /// transport failure (libcurl's code and message).
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The store answered this status.
        case status(Int)
        /// The store could not be reached or the transfer failed.
        case transport(code: Int, message: String)

        /// One line for logs.
        public var description: String {
            switch self {
            case .status(let status): "S3 answered HTTP \(status)"
            case .transport(let code, let message): "S3 unreachable (curl \(code)): \(message)"
            }
        }
    }

    /// The object's bytes, or nil when it does not exist (404). Blocks the calling thread.
    public func get(_ location: DWS3Location) throws(Failure) -> Data? {
        try object(location)?.body
    }

    /// The object's bytes and its response headers (names lowercased), or nil when it does not exist (404).
    /// Blocks the calling thread.
    package func object(_ location: DWS3Location) throws(Failure) -> (body: Data, headers: [String: String])? {
        let (status, body, headers) = try perform(method: "GET", location, body: nil, contentType: nil)
        if status == 404 { return nil }
        guard (200..<300).contains(status) else { throw .status(status) }
        return (body, headers)
    }

    /// Writes the object (a PUT whose `x-amz-content-sha256` is the payload's SHA-256). Blocks the calling thread.
    public func put(_ location: DWS3Location, data: Data, contentType: String = "application/octet-stream")
        throws(Failure)
    {
        try put(location, data: data, contentType: contentType, headers: [])
    }

    /// ``put(_:data:contentType:)`` with more request headers (`x-amz-meta-…` lines, signed with the rest).
    package func put(_ location: DWS3Location, data: Data, contentType: String, headers: [String]) throws(Failure) {
        let (status, _, _) = try perform(
            method: "PUT", location, body: data, contentType: contentType, headers: headers)
        guard (200..<300).contains(status) else { throw .status(status) }
    }

    /// ``get(_:)`` on a global queue.
    public func get(_ location: DWS3Location) async throws(Failure) -> Data? {
        let result: Result<Data?, Failure> = await offThread { () throws(Failure) in try self.get(location) }
        return try result.get()
    }

    /// ``put(_:data:contentType:)`` on a global queue.
    public func put(_ location: DWS3Location, data: Data, contentType: String = "application/octet-stream")
        async throws(Failure)
    {
        let result: Result<Void, Failure> = await offThread { () throws(Failure) in
            try self.put(location, data: data, contentType: contentType)
        }
        try result.get()
    }

    private func offThread<T: Sendable>(_ work: @escaping @Sendable () throws(Failure) -> T) async -> Result<T, Failure>
    {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                do throws(Failure) { continuation.resume(returning: .success(try work())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
    }

    /// Deletes the object; one that is not there is not an error (S3 answers 204 either way). Blocks the calling
    /// thread.
    public func delete(_ location: DWS3Location) throws(Failure) {
        let (status, _, _) = try perform(method: "DELETE", location, body: nil, contentType: nil)
        guard (200..<300).contains(status) || status == 404 else { throw .status(status) }
    }

    /// The keys of `bucket` that start with `prefix` (ListObjectsV2, following its continuation tokens), at most
    /// `limit`. Blocks the calling thread.
    public func keys(bucket: String, prefix: String, limit: Int = 100_000) throws(Failure) -> [String] {
        var keys: [String] = [], token: String?
        repeat {
            var query = "list-type=2&prefix=" + Self.queryEncoded(prefix)
            if let token { query = "continuation-token=" + Self.queryEncoded(token) + "&" + query }
            let (status, body, _) = try perform(
                method: "GET", DWS3Location(bucket: bucket, key: ""), body: nil,
                contentType: nil, query: query)
            guard (200..<300).contains(status) else { throw .status(status) }
            let xml = String(decoding: body, as: UTF8.self)
            keys += Self.elements("Key", in: xml)
            token =
                xml.contains("<IsTruncated>true</IsTruncated>")
                ? Self.elements("NextContinuationToken", in: xml).first : nil
        } while token != nil && keys.count < limit
        return Array(keys.prefix(limit))
    }

    /// The text of every `<name>…</name>` in `xml`, its five XML escapes undone.
    private static func elements(_ name: String, in xml: String) -> [String] {
        xml.components(separatedBy: "<\(name)>").dropFirst().compactMap { part in
            part.range(of: "</\(name)>").map { String(part[..<$0.lowerBound]) }
        }.map {
            $0.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    /// `text` with everything but S3's unreserved characters and `/` percent-encoded: libcurl's SigV4 canonicalises
    /// the query itself (a `/` sent as `%2F` would be signed as `%252F`, and S3 answers 403).
    private static func queryEncoded(_ text: String) -> String {
        PercentEncoding.encode(text) { DWS3Configuration.unreserved.contains($0) }
    }

    /// One request; returns the status, the body read (capped at ``maxBodySize``) and the response's headers
    /// (names lowercased; the last response's, a repeated header's last value).
    private func perform(
        method: String, _ location: DWS3Location, body: Data?, contentType: String?,
        query: String? = nil, headers extra: [String] = []
    ) throws(Failure) -> (Int, Data, [String: String]) {
        guard let easy = dw_curl_easy_init() else {
            let reason = dw_curl_load_error().map { String(cString: $0) } ?? "curl_easy_init failed"
            throw .transport(code: -1, message: reason)
        }
        defer { dw_curl_easy_cleanup(easy) }
        var request = TransferRequest(
            url: configuration.httpURL(bucket: location.bucket, key: location.key)
                + (query.map { "?" + $0 } ?? ""))
        request.signForS3(
            configuration,
            payloadSHA256: body.map(DWS3Configuration.sha256Hex)
                ?? DWS3Configuration.emptyPayloadSHA256)
        if let contentType { request.headers.append("Content-Type: \(contentType)") }
        request.headers += extra
        let sink = BodySink(limit: maxBodySize)
        let code: CURLcode = withExtendedLifetime(sink) {
            let payload = body ?? Data()
            return payload.withUnsafeBytes { bytes in
                var list: UnsafeMutablePointer<curl_slist>?
                for line in request.headers { list = dw_curl_slist_append(list, line) }
                defer { dw_curl_slist_free_all(list) }
                _ = dw_curl_easy_setopt_string(easy, CURLOPT_URL, request.url)
                _ = dw_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
                _ = dw_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
                _ = dw_curl_easy_setopt_long(easy, CURLOPT_PATH_AS_IS, 1)  // the key's path as built, never normalised
                if let proxy { _ = dw_curl_easy_setopt_string(easy, CURLOPT_PROXY, proxy) }
                _ = dw_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(timeout * 1000))
                _ = dw_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(min(timeout, 5) * 1000))
                if body == nil, method != "GET" { _ = dw_curl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method) }
                if body != nil {
                    // POSTFIELDS sends the body; the method is PUT. (No "Expect:" header to suppress 100-continue:
                    // libcurl would sign that empty header it never sends.)
                    _ = dw_curl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method)
                    _ = dw_curl_easy_setopt_long(easy, CURLOPT_EXPECT_100_TIMEOUT_MS, 200)
                    _ = dw_curl_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, bytes.count)
                    _ = dw_curl_easy_setopt_pointer(
                        easy, CURLOPT_POSTFIELDS,
                        UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
                }
                if let sign = request.awsSigV4 {
                    _ = dw_curl_easy_setopt_aws_sigv4(easy, sign.provider, sign.userPassword)
                }
                _ = dw_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
                _ = dw_curl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, bodySinkCallback)
                _ = dw_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
                _ = dw_curl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, headerSinkCallback)
                _ = dw_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, Unmanaged.passUnretained(sink).toOpaque())
                return dw_curl_easy_perform(easy)
            }
        }
        guard code == CURLE_OK else {
            throw .transport(code: Int(code.rawValue), message: String(cString: dw_curl_easy_strerror(code)))
        }
        var status = 0
        _ = dw_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return (status, sink.data, sink.headers)
    }
}

/// The body of one blocking transfer; touched only by the thread in `curl_easy_perform`.
private final class BodySink {
    var data = Data()
    /// Header name (lowercased) → value; a status line (a new response: after a 100, a redirect) starts over.
    var headers: [String: String] = [:]
    let limit: Int
    init(limit: Int) { self.limit = limit }
}

private let bodySinkCallback: curl_write_callback = { buffer, size, count, userdata in
    guard let buffer, let userdata else { return 0 }
    let sink = Unmanaged<BodySink>.fromOpaque(userdata).takeUnretainedValue()
    let n = size * count
    guard sink.data.count + n <= sink.limit else { return 0 }
    sink.data.append(UnsafeRawBufferPointer(start: buffer, count: n).bindMemory(to: UInt8.self))
    return n
}

private let headerSinkCallback: curl_write_callback = { buffer, size, count, userdata in
    guard let buffer, let userdata else { return 0 }
    let sink = Unmanaged<BodySink>.fromOpaque(userdata).takeUnretainedValue()
    let n = size * count
    let line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: n), as: UTF8.self)
    if line.hasPrefix("HTTP/") {
        sink.headers = [:]
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        sink.headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
    }
    return n
}
