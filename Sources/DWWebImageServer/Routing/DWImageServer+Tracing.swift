// Traces: a span per request (DWRequestSpanMiddleware, continuing a W3C `traceparent`), with children for
// the image's fetch and transform and for writing the response. Only with DWServeConfiguration.tracing.
import Hummingbird
import HTTPTypes
import Tracing

extension DWImageServer {
    /// Puts the request span and the response-writing span in front of every route of `router`. The spans go to
    /// `InstrumentationSystem`'s tracer (a no-op one unless the process bootstrapped another). On the main thread,
    /// before the routes are mounted.
    func addTracing<Routes: RouterMethods>(to router: Routes) {
        typealias Context = Routes.Context
        _ = router.add(middleware: DWRequestSpanMiddleware<Context>())
        _ = router.add(middleware: DWStreamingSpanMiddleware<Context>())
    }

    /// A child span of the request's (the task's current span) named `name` with `image_url`, when tracing is on;
    /// nil otherwise. The caller ends it.
    func childSpan(_ name: String, imageURL: String? = nil) -> (any Span)? {
        guard configuration.tracing else { return nil }
        let span = startSpan(name, context: InstrumentationContext.current ?? .topLevel)
        if let imageURL { span.attributes["image_url"] = imageURL }
        return span
    }
}

/// `streaming`: from the handler's answer to the last byte of its body handed to the connection, a child of the
/// request's span. Runs in the request's task.
struct DWStreamingSpanMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var response = try await next(request, context)
        let span = startSpan("streaming", context: InstrumentationContext.current ?? .topLevel)
        span.attributes["http.response.status_code"] = Int(response.status.code)
        let (ending, body) = (DWSpanEnd(span), response.body)
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { ending.end() }
            try await body.write(writer)  // the whole body and its end, then the span's end
        }
        return response
    }
}

/// Ends a span from the body's writer closure (a `@Sendable` closure: `Span` is `Sendable`, its tracer makes it
/// thread-safe, as swift-distributed-tracing requires).
struct DWSpanEnd: Sendable {
    let span: any Span
    init(_ span: any Span) { self.span = span }
    func end() { span.end() }
}
