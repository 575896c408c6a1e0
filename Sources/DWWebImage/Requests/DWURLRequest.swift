// DWURLRequest: the request an app's modifier and redirect handler see and may change (URL and headers).
import Foundation

/// One HTTP GET as the pipeline is about to send it: the URL and the request headers. What a request modifier
/// (``DWRequestModifier``) receives and returns, and what a redirect handler (``DWRedirectHandler``) may rewrite.
///
/// `headers` holds the manager's ``DWWebImageManager/Configuration/requestHeaders``, the request's
/// ``DWWebImageOptions/headers(_:)`` and, when the pipeline resumes or revalidates, its `Range`, `If-Range`,
/// `If-None-Match` or `If-Modified-Since` (change those and the response may no longer fit the bytes held; the
/// resume rules then fetch the whole body). Header names compare case-insensitively when sent.
public struct DWURLRequest: Sendable, Equatable {
    /// An absolute http or https URL.
    public var url: String
    /// Request headers, name → value.
    public var headers: [String: String]

    /// A request for `url` with `headers`.
    public init(url: String, headers: [String: String] = [:]) {
        self.url = url
        self.headers = headers
    }

    /// Sets (or, with nil, removes) a header, matching its name case-insensitively.
    public mutating func setHeader(_ name: String, _ value: String?) {
        for key in headers.keys where key.caseInsensitiveCompare(name) == .orderedSame { headers[key] = nil }
        if let value { headers[name] = value }
    }

    /// The value of a header, its name matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// From the engine's header lines (`"Name: value"`).
    init(url: String, headerLines: [String]) {
        var headers: [String: String] = [:]
        for line in headerLines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.init(url: url, headers: headers)
    }

    /// The engine's header lines, sorted by name (stable requests, stable logs). Lines that would split the
    /// request (CR or LF in a name or value) are dropped.
    var headerLines: [String] {
        headers.sorted { $0.key < $1.key }.compactMap { name, value in
            let line = "\(name): \(value)"
            return line.contains(where: { $0 == "\r" || $0 == "\n" }) || name.isEmpty ? nil : line
        }
    }
}

/// Changes a request before it is sent — a short-lived auth token, a signature — once per attempt (a retry asks
/// again; the hops of a redirect do not: see ``DWRedirectHandler``). Runs in a `Task` of its own, off the transfer
/// thread and off the callback queue; the transfer waits for it (the request's timeout does not count this wait;
/// cancelling the request cancels the task). A throw fails the request without retrying: a thrown
/// ``DWWebImageError`` is delivered as it is (its URL filled in), `CancellationError` as 10007, anything else as
/// 10002 ("no request could be made") whose message names it.
public typealias DWRequestModifier = @Sendable (DWURLRequest) async throws -> DWURLRequest
