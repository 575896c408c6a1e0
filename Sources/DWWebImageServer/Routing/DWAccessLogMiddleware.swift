// DWAccessLogMiddleware: the one middleware of the server's routes — access log, request metrics, HEAD bodies.
import DWLocking
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Wraps every route of a ``DWImageServer`` (``DWImageServer/addRoutes(to:at:)``): gives the request its ID
/// (``DWRequestID``: its `X-Request-ID`, or a new one, echoed in the response and in every log line of the request),
/// times it, counts it in `/metrics` (image requests only: probes and scrapes would swamp the counts), writes one
/// access-log line at `.info` — `GET /path 200 123 4.5ms note` in the pretty format; imgproxy's `Completed in 4.5ms
/// /path` with `request_id`, `method`, `status`, `client_ip`, `image_url`, `bytes` and `note` fields in the
/// structured and JSON ones — and drops the body of a HEAD answer (its headers, `Content-Length` included, stay).
/// Runs in the request's task.
struct DWAccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let server: DWImageServer

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let clock = ContinuousClock()
        let start = clock.now
        let note = DWAccessNote()
        note.requestID = DWRequestID.id(from: request.headers[DWRequestID.field])
        server.metrics.imgproxy.requestStarted()
        var response: Response
        if server.configuration.allowOrigin != nil, request.method == .options {
            // a CORS preflight, as imgproxy answers it
            response = Response(status: .ok, headers: [.contentLength: "0"])
            note.isProbe = true
        } else {
            response = try await DWAccessNote.$current.withValue(note) { try await next(request, context) }
        }
        if let origin = server.configuration.allowOrigin {
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.accessControlAllowMethods] = "GET, OPTIONS"
        }
        response.headers[DWRequestID.field] = note.requestID
        let elapsed = clock.now - start
        // The body's own length first: a search of the header fields costs a hot request 2 % of its instructions.
        let bytes = response.body.contentLength ?? response.headers[.contentLength].flatMap(Int.init) ?? 0
        if request.method == .head { response.body = ResponseBody() }
        server.metrics.imgproxy.requestFinished()
        if !note.isProbe {
            server.metrics.answered(
                status: response.status.code, bytes: request.method == .head ? 0 : bytes,
                elapsed: elapsed)
        }
        if server.logger.logLevel <= .info {
            let ms = String(format: "%.1f", elapsed / .milliseconds(1))
            let path = request.head.path ?? "/"
            guard server.configuration.logFormat != .pretty else {
                server.logger.info("\(request.method) \(path) \(response.status.code) \(bytes) \(ms)ms\(note.text)")
                return response
            }
            var fields: Logger.Metadata = [
                "request_id": .string(note.requestID), "method": .string("\(request.method)"),
                "status": .stringConvertible(response.status.code), "bytes": .stringConvertible(bytes)
            ]
            if let address = (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress {
                fields["client_ip"] = .string(address)
            }
            if let source = note.imageURL { fields["image_url"] = .string(source) }
            if !note.text.isEmpty { fields["note"] = .string(String(note.text.dropFirst())) }
            server.logger.info("Completed in \(ms)ms \(path)", metadata: fields)
        }
        return response
    }
}

/// What a handler tells the access log about its request (set in the handler's task, read by the middleware
/// after it returns; guarded by a lock all the same).
final class DWAccessNote: Sendable {
    /// The note of the request this task is answering; nil outside the server's routes.
    @TaskLocal static var current: DWAccessNote?

    private let state = DWLock((text: "", isProbe: false, requestID: "", imageURL: String?.none))

    /// The request's ID (``DWRequestID``), set by the middleware before the handler runs.
    var requestID: String {
        get { state.withLock { $0.requestID } }
        set { state.withLock { $0.requestID = newValue } }
    }

    /// The source URL of an image or `/info` request, once parsed (the log's `image_url`).
    var imageURL: String? {
        get { state.withLock { $0.imageURL } }
        set { state.withLock { $0.imageURL = newValue } }
    }

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
