// The server's routes on Hummingbird's Router: /health, /metrics and the image route, behind one middleware.
import Foundation
import Hummingbird

extension DWImageServer {
    /// Mounts this server's routes in a Hummingbird application, under `prefix` ("" for the root, or e.g. "images"):
    /// `GET`/`HEAD` `{prefix}/health` (200 "ok"), `{prefix}/metrics` (404: the Prometheus text is served only on the
    /// `--metrics-bind` listener, or by ``metricsText()`` where an embedder wants it), `{prefix}/info/…`
    /// (``infoResponse(for:target:)``; `POST {prefix}/info`, ``infoBatchResponse(for:)``) and the image route, every
    /// other path under the prefix (imgproxy's `/{signature}/{options}/{source}`, parsed after the prefix). The
    /// routes sit in their own group with ``DWImageServer``'s access-log and metrics middleware, so the
    /// application's other routes and middleware are untouched; other methods stay the application's business.
    ///
    /// ```swift
    /// let router = Router()
    /// router.get("hello") { _, _ in "hello" }
    /// server.addRoutes(to: router, at: "images")   // GET /images/insecure/rs:fit:200:0/plain/https://…
    /// let app = Application(router: router)
    /// ```
    /// Handlers run on Hummingbird's tasks; this server's manager, cache and limits serve them. Its shutdown is the
    /// application's (``run(onListening:)`` is not involved).
    public func addRoutes(to router: some RouterMethods, at prefix: String = "") {
        mount(on: router, at: prefix, refusingOtherMethods: false)
    }

    /// The routes; `refusingOtherMethods` (the whole server of ``run(onListening:)``) answers 405 to other methods.
    func mount<Routes: RouterMethods>(on router: Routes, at prefix: String, refusingOtherMethods: Bool) {
        let trimmed = Self.trimmingSlashes(prefix)
        let base = trimmed.isEmpty ? "" : "/" + trimmed
        let group = router.group(RouterPath(trimmed)).add(
            middleware: DWAccessLogMiddleware<Routes.Context>(server: self))
        let extraHealth = configuration.healthCheckPath.map(Self.trimmingSlashes)
        for method in [HTTPRequest.Method.get, .head] {
            for path in ["health"] + (extraHealth.map { $0.isEmpty ? [] : [$0] } ?? []) {
                group.on(RouterPath(path), method: method) { _, _ in
                    DWAccessNote.current?.isProbe = true
                    return DWResponses.text(.ok, "ok")
                }
            }
            if configuration.thumbor.isEnabled {
                group.on("healthcheck", method: method) { _, _ in Self.thumborHealthcheck() }  // thumbor's probe
            }
            group.on("metrics", method: method) { _, _ in
                DWAccessNote.current?.isProbe = true
                return DWResponses.error(.notFound, "not found")
            }
            for path: RouterPath in ["", "**", "info", "info/**"] {  // "info" too: POST /info's node hides "**"
                group.on(path, method: method) { [self] request, context in
                    if let refusal = secretRefusal(request) ?? refererRefusal(request) { return refusal }
                    let target = Self.target(of: request, below: base)
                    return await withClient(of: context) {
                        target.hasPrefix("/info/")
                            ? await infoResponse(for: request, target: target)
                            : await boundedImageResponse(for: request, target: target)
                    }
                }
            }
        }
        group.on("info", method: .post) { [self] request, context in  // POST /info: a batch (InfoBatch)
            if let refusal = secretRefusal(request) ?? refererRefusal(request) { return refusal }
            return await withClient(of: context) { await infoBatchResponse(for: request) }
        }
        guard refusingOtherMethods else { return }
        for method in [HTTPRequest.Method.post, .put, .delete, .patch, .options, .trace, .connect] {
            for path: RouterPath in ["", "**", "info/**"] + (method == .post ? [] : ["info"]) {
                group.on(path, method: method) { _, _ in
                    DWAccessNote.current?.text = " method"
                    return DWResponses.error(.methodNotAllowed, "only GET and HEAD are served")
                }
            }
        }
    }

    /// `path` without its leading and trailing slashes: a mount prefix or route as the router takes it.
    static func trimmingSlashes(_ path: String) -> String {
        path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    }

    /// The request target as received (path and query, percent-encoding untouched) after the mount prefix.
    static func target(of request: Request, below base: String) -> String {
        let raw = request.head.path ?? "/"
        guard !base.isEmpty, raw.hasPrefix(base) else { return raw }
        let rest = String(raw.dropFirst(base.count))
        return rest.isEmpty ? "/" : rest
    }
}
