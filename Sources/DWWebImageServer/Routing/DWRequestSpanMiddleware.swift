// DWRequestSpanMiddleware: the request's server span, continuing a W3C `traceparent`, with the status and attributes
// imgproxy's OpenTelemetry monitoring sets on it (an error answer is an error span, as imgproxy's SendError makes it).
import DWLocking
import HTTPTypes
import Hummingbird
import NIOCore
import Tracing

/// One server span per request, named by its route (Hummingbird's `http.route`), in the trace of the client's
/// `traceparent` when it sent one. Attributes: the current semantic conventions Hummingbird's `TracingMiddleware`
/// records (`http.request.method`, `url.path`, `url.query`, `user_agent.original`, `net.sock.peer.addr`,
/// `http.route`, `http.response.status_code`, `http.response.body.size`, the `Accept` and `Content-Type` headers)
/// and imgproxy's older names beside them (`http.method`, `http.url`, `http.status_code`). An answer made from an
/// error (``DWResponses/error(_:_:)``, any 4xx or 5xx) gets what imgproxy's `SendError` gives the request span: an
/// error status with the message and an `exception` event (`exception.type` `<errors_total type>_error`,
/// `exception.message`); any other 5xx an error status; other answers none. The span ends when the body's last
/// byte has been handed to the connection. Runs in the request's task.
struct DWRequestSpanMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var parent = InstrumentationContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: DWFieldsExtractor())
        let span = startSpan("HTTP \(request.method.rawValue) route not found", context: parent, ofKind: .server)
        Self.recordRequest(request, context: context, on: span)
        let failure = DWAnswerFailure()
        do {
            var response = try await InstrumentationContext.$current.withValue(span.context) {
                try await DWAnswerFailure.$current.withValue(failure) { try await next(request, context) }
            }
            Self.recordRoute(context, on: span)
            let status = Int(response.status.code)
            span.updateAttributes { attributes in
                attributes["http.response.status_code"] = status
                attributes["http.status_code"] = status
                attributes["http.response.body.size"] = response.body.contentLength
                attributes["http.response.header.content_type"] = response.headers[.contentType]
            }
            if let message = failure.message {
                Self.recordFailure(status: status, message: message, on: span)
            } else if status >= 500 {
                span.setStatus(SpanStatus(code: .error))
            }
            let (ending, body) = (DWSpanEnd(span), response.body)
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                defer { ending.end() }
                try await body.write(writer)
            }
            return response
        } catch {
            Self.recordRoute(context, on: span)
            let status = Int((error as? any HTTPResponseError)?.status.code ?? 500)
            span.attributes["http.response.status_code"] = status
            span.attributes["http.status_code"] = status
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error, message: "\(error)"))
            span.end()
            throw error
        }
    }

    private static func recordRequest(_ request: Request, context: Context, on span: any Span) {
        span.updateAttributes { attributes in
            attributes["http.request.method"] = request.method.rawValue
            attributes["http.method"] = request.method.rawValue
            attributes["url.path"] = request.uri.path
            attributes["url.query"] = request.uri.query
            attributes["http.url"] = request.uri.description
            attributes["user_agent.original"] = request.headers[.userAgent]
            attributes["http.request.header.accept"] = request.headers[.accept]
            attributes["http.request.header.content_type"] = request.headers[.contentType]
            if let address = (context as? any RemoteAddressRequestContext)?.remoteAddress {
                attributes["net.sock.peer.addr"] = address.ipAddress
                attributes["net.sock.peer.port"] = address.port
            }
        }
    }

    private static func recordRoute(_ context: Context, on span: any Span) {
        guard let route = context.endpointPath else { return }
        span.operationName = route
        span.attributes["http.route"] = route
    }

    /// imgproxy's `SendError` on the request span: the error status with its message, and the `exception` event.
    private static func recordFailure(status: Int, message: String, on span: any Span) {
        let type = (DWImgproxyMetrics.errorType(status) ?? (status >= 500 ? "streaming" : "request")) + "_error"
        var attributes = SpanAttributes()
        attributes["exception.type"] = type
        attributes["exception.message"] = message
        span.addEvent(SpanEvent(name: "exception", attributes: attributes))
        span.setStatus(SpanStatus(code: .error, message: message))
    }
}

/// The error an answer of the running request was made from (``DWResponses/error(_:_:)`` notes it), for the
/// request's span. Set by ``DWRequestSpanMiddleware`` around the handler; thread-safe (one ``DWLock``, a leaf).
final class DWAnswerFailure: Sendable {
    /// The running request's, when tracing is on; nil otherwise (nothing is noted).
    @TaskLocal static var current: DWAnswerFailure?

    private let state = DWLock<String?>(nil)

    /// The message of the last error answer made for this request; nil when none was.
    var message: String? { state.withLock { $0 } }

    /// Notes an error answer's message (the last one made wins: it is the one sent).
    func note(_ message: String) { state.withLock { $0 = message } }
}

/// Reads a propagator's fields from the request's header fields.
struct DWFieldsExtractor: Extractor {
    func extract(key name: String, from headers: HTTPFields) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }
}
