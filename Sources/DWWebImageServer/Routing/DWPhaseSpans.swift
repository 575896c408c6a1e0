// DWPhaseSpans: imgproxy's `downloading_source_image`, `queue` and `processing_image` trace spans of one request, made
// from the pipeline's phases (DWFetchPhases) under the request's `image` span.
import DWLocking
import DWWebImage
import Tracing

/// The phase spans of one fetch, children of `parent` (the request's `image` span): `downloading_source_image` from
/// the fetch's start to its source's arrival (downloaded or found in a cache tier; attributes
/// `imgproxy.source_image_url`, `imgproxy.source_image_origin` as imgproxy sets them, and `dwserve.source`), and
/// `queue` from the source's arrival to the start of its transform (the wait for a worker thread: imgproxy's `queue`
/// span; a transform refused by a full queue ends it with the error), and
/// `processing_image` around the variant's transform; a failed phase records the error and an error status, as
/// imgproxy's `SendError` does. imgproxy 3 called the download span `downloading_image`. Called from the pipeline's
/// threads and from the request's task (``finish(_:)``); one ``DWLock``, a leaf, never held while a span is made.
final class DWPhaseSpans: DWFetchPhaseObserver {
    private let parent: ServiceContext
    private let imageURL: String
    private let started = DefaultTracerClock.now
    private let state = DWLock<
        (arrived: Bool, processing: (any Span)?, processed: Bool, queued: DefaultTracerClock.Instant?)
    >(
        (false, nil, false, nil))

    /// Spans under `parent` for the fetch of `imageURL`, which starts now.
    init(parent: ServiceContext, imageURL: String) {
        (self.parent, self.imageURL) = (parent, imageURL)
    }

    func sourceArrived(_ source: DWImageSource) {
        let now = DefaultTracerClock.now
        let first = state.withLock { s in
            defer { s.arrived = true }
            if !s.processed && s.processing == nil && s.queued == nil { s.queued = now }
            return !s.arrived
        }
        if first { downloadSpan(source, error: nil, arrived: now) }
    }

    func processingStarted() {
        guard
            let queued = state.withLock({ s -> DefaultTracerClock.Instant?? in
                guard s.processing == nil, !s.processed else { return nil }
                defer { s.queued = nil }
                return .some(s.queued)
            })
        else { return }
        let now = DefaultTracerClock.now  // the wait ends where the transform starts
        if let queued { startSpan("queue", context: parent, at: queued).end(at: now) }
        let span = startSpan("processing_image", context: parent, at: now)
        let extra = state.withLock { s -> (any Span)? in
            guard s.processing == nil else { return span }
            s.processing = span
            return nil
        }
        extra?.end()
    }

    func processingEnded(_ error: DWWebImageError?) {
        let (span, queued) = state.withLock { s -> ((any Span)?, DefaultTracerClock.Instant?) in
            defer { (s.processing, s.processed, s.queued) = (nil, true, nil) }
            return (s.processing, s.processing == nil && !s.processed ? s.queued : nil)
        }
        if let queued, let error {  // refused or stopped before a worker took it: the wait is what failed
            let wait = startSpan("queue", context: parent, at: queued)
            Self.record(error, on: wait)
            wait.end()
        }
        guard let span else { return }
        if let error { Self.record(error, on: span) }
        span.end()
    }

    /// After the fetch, with its result: a failure before any source arrived is the download's (its span then
    /// carries the error); a source answered as it is (no transform: `raw:1`) gets its download span; a transform
    /// still open (its callers gone) ends with the result's error.
    func finish(_ result: Result<DWImage, DWWebImageError>) {
        let (arrived, open) = state.withLock { s in
            defer { (s.arrived, s.processing) = (true, nil) }
            return (s.arrived, s.processing)
        }
        if let open {
            if case .failure(let error) = result { Self.record(error, on: open) }
            open.end()
        }
        guard !arrived else { return }
        switch result {
        case .failure(let error) where open == nil: downloadSpan(.network, error: error)
        case .success(let image) where image.source == .network: downloadSpan(.network, error: nil)
        default: break  // the variant itself came from a cache tier: nothing was downloaded or processed
        }
    }

    /// The download span, from the fetch's start to `arrived` (when the queue's wait begins), else to now.
    private func downloadSpan(
        _ source: DWImageSource, error: DWWebImageError?,
        arrived: DefaultTracerClock.Instant? = nil
    ) {
        let span = startSpan("downloading_source_image", context: parent, at: started)
        span.attributes["imgproxy.source_image_url"] = imageURL
        span.attributes["imgproxy.source_image_origin"] = Self.origin(of: imageURL)
        span.attributes["dwserve.source"] = source.rawValue
        if let error { Self.record(error, on: span) }
        if let arrived { span.end(at: arrived) } else { span.end() }
    }

    private static func record(_ error: DWWebImageError, on span: any Span) {
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: error.message))
    }

    /// imgproxy's origin of a source URL: `scheme://host[:port]`.
    static func origin(of url: String) -> String {
        guard let scheme = url.range(of: "://") else { return "" }
        let rest = url[scheme.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return String(url[..<scheme.upperBound]) + rest[..<end]
    }
}
