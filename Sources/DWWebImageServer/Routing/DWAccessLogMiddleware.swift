// DWAccessLogMiddleware: the one middleware of the server's routes — access log, request metrics, HEAD bodies.
import DWLocking
import Foundation
import Hummingbird

/// Wraps every route of a ``DWImageServer`` (``DWImageServer/addRoutes(to:at:)``): times the request, counts it in
/// `/metrics` (image requests only: probes and scrapes would swamp the counts), writes one access-log line at
/// `.info` (method, target, status, bytes, milliseconds, and the handler's note: where the bytes came from or why it
/// failed), and drops the body of a HEAD answer (its headers, `Content-Length` included, stay). Runs in the
/// request's task.
struct DWAccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let server: DWImageServer

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let clock = ContinuousClock()
        let start = clock.now
        let note = DWAccessNote()
        var response = try await DWAccessNote.$current.withValue(note) { try await next(request, context) }
        let elapsed = clock.now - start
        let bytes = response.headers[.contentLength].flatMap(Int.init) ?? 0
        if request.method == .head { response.body = ResponseBody() }
        if !note.isProbe {
            server.metrics.answered(status: response.status.code, bytes: request.method == .head ? 0 : bytes,
                                    elapsed: elapsed)
        }
        if server.logger.logLevel <= .info {
            let ms = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
            let line = "\(request.method) \(request.head.path ?? "/") \(response.status.code) \(bytes) "
                + "\(String(format: "%.1f", ms))ms\(note.text)"
            server.logger.info("\(line)")
        }
        return response
    }
}

/// What a handler tells the access log about its request (set in the handler's task, read by the middleware
/// after it returns; guarded by a lock all the same).
final class DWAccessNote: Sendable {
    /// The note of the request this task is answering; nil outside the server's routes.
    @TaskLocal static var current: DWAccessNote?

    private let state = DWLock((text: "", isProbe: false))

    /// Appended to the access-log line: " disk", " network", " bad-url", " error 10004", …
    var text: String {
        get { state.withLock { $0.text } }
        set { state.withLock { $0.text = newValue } }
    }

    /// /health and /metrics: logged, not counted.
    var isProbe: Bool {
        get { state.withLock { $0.isProbe } }
        set { state.withLock { $0.isProbe = newValue } }
    }
}
