// DWServeResponder: image requests straight to the image route; everything else through the router.
import Hummingbird

/// The responder of ``DWImageServer/run(onListening:onMetricsListening:services:)``. Hummingbird's router finds
/// every request's route by walking its path component by component through a trie, character by character; for
/// the image route, a catch-all below the prefix, that walk would cost about an eighth of a cached variant's
/// instructions (its URL is long). A `GET` or `HEAD` whose raw path is the prefix, a slash and a first component
/// that no other route starts with goes to the responder the router would have chosen (``DWServeRoutes``: the same
/// middleware, the same `endpointPath`); any other request, and any path it is unsure of (an empty or
/// percent-encoded first component, an absolute-form target), goes to the router. Runs on the request's task.
struct DWServeResponder: HTTPResponder {
    let router: RouterResponder<DWRequestContext>
    /// The image route's responder per method (empty: no shortcut).
    let images: [HTTPRequest.Method: any HTTPResponder<DWRequestContext>]
    /// "" or "/prefix".
    let base: String
    /// First path components (below the prefix) of the other routes.
    let named: Set<String>
    /// What the router records as the image route's path (`/**`, `/prefix/**`).
    let endpointPath: String

    func respond(to request: Request, context: DWRequestContext) async throws -> Response {
        guard let image = images[request.method], Self.isImagePath(request.head.path, base: base, named: named)
        else { return try await router.respond(to: request, context: context) }
        context.coreContext.endpointPath.value = endpointPath
        do {
            return try await image.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {  // as the router answers a thrown error
            return try error.response(from: request, context: context)
        }
    }

    /// Whether the raw request target `path` surely belongs to the image route: `base`, "/", then a first component
    /// (up to the next "/" or "?") that is not empty, has no "%" and is not in `named`.
    static func isImagePath(_ path: String?, base: String, named: Set<String>) -> Bool {
        guard let path else { return false }
        var utf8 = Substring(path).utf8
        guard utf8.starts(with: base.utf8) else { return false }
        utf8 = utf8.dropFirst(base.utf8.count)
        guard utf8.first == UInt8(ascii: "/") else { return false }
        utf8 = utf8.dropFirst()
        let end = utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? utf8.endIndex
        let first = utf8[..<end]
        guard !first.isEmpty, !first.contains(UInt8(ascii: "%")) else { return false }
        return !named.contains(String(Substring(first)))
    }
}
