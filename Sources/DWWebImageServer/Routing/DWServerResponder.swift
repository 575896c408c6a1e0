// DWServerResponder: the whole server's routes (`dwfetch serve`) dispatched by hand — the same handlers and
// middleware as the Router that addRoutes(to:at:) fills, without the router's path trie on every request.
import Hummingbird

/// The responder of ``DWImageServer/run(onListening:onMetricsListening:)``: the routes ``DWImageServer/addRoutes(to:at:)``
/// puts in a router at the root, plus 405 for other methods, as one function. Hummingbird's router splits and walks every
/// path (a hot image URL holds an encoded source URL: ~12 % of a cached variant's instructions went there); these
/// routes need only two exact names. The same ``DWAccessLogMiddleware`` wraps every request; GET and HEAD of
/// `/health` and `/metrics` (the path without its query, empty segments ignored, as the router matches them) get their
/// answers, every other GET or HEAD the image route (`/info/…` or an image), any other method 405. Runs in the
/// request's task.
struct DWServerResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let server: DWImageServer

    func respond(to request: Request, context: Context) async throws -> Response {
        try await DWAccessLogMiddleware<Context>(server: server).handle(request, context: context) { request, _ in
            guard request.method == .get || request.method == .head else { return DWImageServer.methodRefused() }
            switch Self.fixedRoute(request.uri.path) {
            case "health": return DWImageServer.health()
            case "metrics": return DWImageServer.metricsRefused()
            default: return await server.imageRoute(request, below: "")
            }
        }
    }

    /// The path's only segment when it has exactly one ("/health", "/health/"), else nil.
    static func fixedRoute(_ path: String) -> Substring? {
        let segments = path.utf8.split(separator: UInt8(ascii: "/"))
        return segments.count == 1 ? Substring(segments[0]) : nil
    }
}
