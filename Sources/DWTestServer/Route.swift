// Route: what LoopbackHTTPServer answers for a path — bodies, statuses, ranges, and composable faults.
import Foundation

/// A response recipe. Build one with the static factories and wrap it in fault modifiers.
public struct Route: Sendable {
    fileprivate indirect enum Kind: Sendable {
        case body(status: Int, body: Data, headers: [(String, String)])
        case resource(body: Data, contentType: String, etag: String?, lastModified: String?)
        case dynamic(@Sendable (RecordedRequest) -> Route)
        case delayed(TimeInterval, Kind)
        case dropAfter(Int, Kind)
        case closeAfter(Int, Kind)
        case stallAfter(Int, Kind)
        case chunked(Kind)
        case throttled(Int, TimeInterval, Kind)
        case hang
        case endless(Int)
        case closeImmediately
    }
    fileprivate let kind: Kind

    /// 200 with the body and a Content-Length. Honours HEAD.
    public static func ok(
        _ body: Data, contentType: String = "application/octet-stream",
        headers: [(String, String)] = []
    ) -> Route {
        Route(kind: .body(status: 200, body: body, headers: [("Content-Type", contentType)] + headers))
    }
    /// Any status, with an optional body and headers.
    public static func status(_ code: Int, body: Data = Data(), headers: [(String, String)] = []) -> Route {
        Route(kind: .body(status: code, body: body, headers: headers))
    }
    /// A redirect with a Location header.
    public static func redirect(to location: String, status: Int = 302) -> Route {
        Route(kind: .body(status: status, body: Data(), headers: [("Location", location)]))
    }
    /// A resource that honours `Range: bytes=N-` / `bytes=N-M` (206 with Content-Range), `If-Range`
    /// (a mismatch gets the full 200) and answers 416 `bytes */total` for unsatisfiable ranges.
    public static func resource(
        _ body: Data, contentType: String = "application/octet-stream", etag: String? = nil,
        lastModified: String? = nil
    ) -> Route {
        Route(kind: .resource(body: body, contentType: contentType, etag: etag, lastModified: lastModified))
    }
    /// Waits before sending the head.
    public static func delayed(_ seconds: TimeInterval, _ route: Route) -> Route {
        Route(kind: .delayed(seconds, route.kind))
    }
    /// Sends the head (full Content-Length) and the first `bytes` of the body, then resets the connection.
    public static func dropAfter(bytes: Int, _ route: Route) -> Route { Route(kind: .dropAfter(bytes, route.kind)) }
    /// Sends the head (full Content-Length) and the first `bytes` of the body, then closes the connection
    /// cleanly (FIN): the client receives every byte sent, and knows the body is short.
    public static func closeAfter(bytes: Int, _ route: Route) -> Route { Route(kind: .closeAfter(bytes, route.kind)) }
    /// Sends the head and the first `bytes`, then nothing until the client leaves or the server shuts down.
    public static func stallAfter(bytes: Int, _ route: Route) -> Route { Route(kind: .stallAfter(bytes, route.kind)) }
    /// Sends the body chunked, without Content-Length.
    public static func chunked(_ route: Route) -> Route { Route(kind: .chunked(route.kind)) }
    /// Sends the body in `chunk`-byte pieces, `interval` seconds apart.
    public static func throttled(chunk: Int, interval: TimeInterval, _ route: Route) -> Route {
        Route(kind: .throttled(max(1, chunk), interval, route.kind))
    }
    /// Reads the request and never answers.
    public static var hang: Route { Route(kind: .hang) }
    /// A never-ending chunked body.
    public static func endless(chunk: Int = 16384) -> Route { Route(kind: .endless(max(1, chunk))) }
    /// Closes the connection right after reading the request.
    public static var closeImmediately: Route { Route(kind: .closeImmediately) }

    /// The route `handler` returns for each request, called on that connection's own thread (it may block there,
    /// e.g. to hold an answer back until a test lets it go).
    public static func dynamic(_ handler: @escaping @Sendable (RecordedRequest) -> Route) -> Route {
        Route(kind: .dynamic(handler))
    }

    /// Turns the recipe into a concrete plan for `request`.
    func resolve(_ request: RecordedRequest) -> ResponsePlan {
        var plan = ResponsePlan()
        Route.apply(kind, request, &plan)
        return plan
    }

    private static func apply(_ kind: Kind, _ request: RecordedRequest, _ plan: inout ResponsePlan) {
        switch kind {
        case .body(let status, let body, let headers):
            plan.status = status
            plan.body = body
            plan.headers += headers
        case .resource(let body, let contentType, let etag, let lastModified):
            plan.headers += [("Content-Type", contentType), ("Accept-Ranges", "bytes")]
            if let etag { plan.headers.append(("ETag", etag)) }
            if let lastModified { plan.headers.append(("Last-Modified", lastModified)) }
            plan.status = 200
            plan.body = body
            guard let range = request.header("Range"), let (start, end) = parseRange(range, total: body.count) else {
                return
            }
            if let ifRange = request.header("If-Range"), ifRange != etag && ifRange != lastModified { return }
            if start >= body.count {
                plan.status = 416
                plan.body = Data()
                plan.headers.append(("Content-Range", "bytes */\(body.count)"))
                return
            }
            let last = min(end ?? body.count - 1, body.count - 1)
            plan.status = 206
            plan.body = body.subdata(in: start..<last + 1)
            plan.headers.append(("Content-Range", "bytes \(start)-\(last)/\(body.count)"))
        case .dynamic(let handler):
            apply(handler(request).kind, request, &plan)
        case .delayed(let seconds, let inner):
            plan.delay += seconds
            apply(inner, request, &plan)
        case .dropAfter(let n, let inner):
            plan.fault = .dropAfter(n)
            apply(inner, request, &plan)
        case .closeAfter(let n, let inner):
            plan.fault = .closeAfter(n)
            apply(inner, request, &plan)
        case .stallAfter(let n, let inner):
            plan.fault = .stallAfter(n)
            apply(inner, request, &plan)
        case .chunked(let inner):
            plan.chunked = true
            apply(inner, request, &plan)
        case .throttled(let chunk, let interval, let inner):
            plan.throttle = (chunk, interval)
            apply(inner, request, &plan)
        case .hang:
            plan.fault = .hang
        case .endless(let size):
            plan.fault = .endless(size)
        case .closeImmediately:
            plan.fault = .closeImmediately
        }
    }

    /// `bytes=N-` or `bytes=N-M`; nil for anything else (RFC 9110: an invalid Range is ignored).
    static func parseRange(_ value: String, total: Int) -> (Int, Int?)? {
        guard value.hasPrefix("bytes=") else { return nil }
        let spec = value.dropFirst(6)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash], second = spec[spec.index(after: dash)...]
        guard !first.isEmpty, first.count <= 18, first.allSatisfy(\.isNumber), let start = Int(first) else {
            return nil
        }
        if second.isEmpty { return (start, nil) }
        guard second.count <= 18, second.allSatisfy(\.isNumber), let end = Int(second), end >= start else { return nil }
        return (start, end)
    }
}

/// A concrete response: what to send and how to misbehave.
struct ResponsePlan {
    enum Fault: Equatable {
        case none, dropAfter(Int), closeAfter(Int), stallAfter(Int), hang, endless(Int), closeImmediately
    }
    var status = 200
    var headers: [(String, String)] = []
    var body = Data()
    var contentLength: Int?
    var delay: TimeInterval = 0
    var chunked = false
    var throttle: (chunk: Int, interval: TimeInterval)?
    var fault: Fault = .none
}
