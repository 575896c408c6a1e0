// DWServeRoutes: the whole server's routes on its Router, and the image route's responder kept aside for the shortcut.
import Hummingbird

/// Where ``DWImageServer/run(onListening:onMetricsListening:services:)`` mounts its routes: every route and
/// middleware goes to the router as given, and the responder the router will call for the image route (`GET` and
/// `HEAD` of `{prefix}/**`, wrapped in the same middleware, in the same order, as the router wraps it) is kept for
/// ``DWServeResponder``, which hands image requests to it without resolving their path in the router's trie.
/// Also noted: the first path component (below the prefix) of every other route, which the shortcut leaves to the
/// router. Filled by one thread while the server is set up (not thread-safe); ``responder()`` makes the value served.
final class DWServeRoutes: RouterMethods {
    typealias Context = DWRequestContext

    let router: Router<DWRequestContext>
    /// The mount prefix's components, trimmed ("" for the root, e.g. "images").
    let prefix: String
    private let imagePath: RouterPath
    private let prefixLength: Int
    private var middlewares: [any MiddlewareProtocol<Request, Response, Context>] = []
    private var images: [HTTPRequest.Method: any HTTPResponder<Context>] = [:]
    private var named: Set<String> = []
    private var shortcutSafe = true

    /// Routes for `router` mounted at `prefix` (trimmed of slashes).
    init(router: Router<DWRequestContext>, prefix: String) {
        self.router = router
        self.prefix = prefix
        let prefixPath = RouterPath(prefix)
        (imagePath, prefixLength) = (prefixPath.appendingPath("**"), prefixPath.count)
    }

    @discardableResult
    func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
    where Responder.Context == Context {
        router.on(path, method: method, responder: responder)
        if path == imagePath {
            guard method == .get || method == .head else { return self }  // other methods: the router's 405
            // What Router.on wraps it in: the router's middleware, first added outermost.
            var chain: any HTTPResponder<Context> = responder
            for middleware in middlewares.reversed() { chain = DWMiddlewareStep(middleware: middleware, next: chain) }
            images[method] = chain
        } else if let first = path.dropFirst(prefixLength).first {
            let word = first.description
            if first == .path(Substring(word)) {
                named.insert(word)
            } else {
                shortcutSafe = false  // a pattern below the prefix: only the trie can tell its paths apart
            }
        }
        return self
    }

    @discardableResult
    func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        middlewares.append(middleware)  // applies to the routes added after it, as in Router
        return self
    }

    /// The server's responder: the router's, with image requests taking the shortcut when it is safe.
    func responder() -> DWServeResponder {
        DWServeResponder(
            router: router.buildResponder(), images: shortcutSafe ? images : [:],
            base: prefix.isEmpty ? "" : "/" + prefix, named: named, endpointPath: imagePath.description)
    }
}

/// One middleware in front of the next responder (Hummingbird's own such type is internal).
struct DWMiddlewareStep: HTTPResponder {
    let middleware: any MiddlewareProtocol<Request, Response, DWRequestContext>
    let next: any HTTPResponder<DWRequestContext>

    func respond(to request: Request, context: DWRequestContext) async throws -> Response {
        try await middleware.handle(request, context: context) { try await next.respond(to: $0, context: $1) }
    }
}
