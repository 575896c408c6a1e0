// DWImgproxyMetrics: imgproxy's Prometheus metrics, by imgproxy 3's and 4's names, beside serve's own.
import DWLocking
import DWWebImageProcessing
import Foundation
import Prometheus

/// The metrics an imgproxy dashboard reads, in the same registry as serve's `dwserve_*` ones, under imgproxy's
/// names and labels (``DWServeConfiguration/prometheusNamespace`` prefixes them, as `IMGPROXY_PROMETHEUS_NAMESPACE`):
/// `requests_total`, `status_codes_total{status}`, `errors_total{type}`, `request_duration_seconds`,
/// `request_span_duration_seconds{span}` (`queue`, 3.x's `downloading`/`processing` and 4.x's
/// `downloading_source_image`/`processing_image`), `download_duration_seconds`, `processing_duration_seconds`,
/// `requests_in_progress`, `images_in_progress`, `workers`, `workers_utilization` and libvips' `vips_memory_bytes`,
/// `vips_max_memory_bytes` and `vips_allocs` (read at each scrape). Thread-safe (the registry's and
/// each metric's locks; the in-progress counts behind one ``DWLock``, a leaf).
final class DWImgproxyMetrics: Sendable {
    private let requests: Counter
    private let requestDuration: DurationHistogram
    private let downloadDuration: DurationHistogram
    private let processingDuration: DurationHistogram
    private let spans: [String: DurationHistogram]
    private let requestsInProgress: Gauge
    private let imagesInProgress: Gauge
    private let utilization: Gauge
    private let vipsMemory: Gauge, vipsMaxMemory: Gauge, vipsAllocations: Gauge
    private let registry: PrometheusCollectorRegistry
    private let namespace: String?
    private let workers: Int
    private let inProgress = DWLock((requests: 0, images: 0))
    /// `status_codes_total` by status and `errors_total` by type, each made at its first use (a label appears in
    /// `/metrics` once it has happened, as in imgproxy) and then kept: the registry's lookup formats and checks
    /// the name and labels, 2 % of a hot request. A leaf lock, never held with `inProgress`.
    private let labelled = DWLock([Label: Counter]())

    /// One labelled counter: `status_codes_total{status}` or `errors_total{type}`.
    private enum Label: Hashable {
        case status(Int)
        case error(String)
    }

    init(registry: PrometheusCollectorRegistry, namespace: String?, workers: Int) {
        self.registry = registry
        self.namespace = namespace
        self.workers = max(1, workers)
        let buckets: [Duration] = [
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
            .milliseconds(2500), .seconds(5), .seconds(10)
        ]
        func histogram(_ name: String, _ help: String, _ labels: [(String, String)] = []) -> DurationHistogram {
            registry.makeDurationHistogram(
                descriptor: Self.name(namespace, name, help), labels: labels, buckets: buckets)
        }
        requests = registry.makeCounter(
            descriptor: Self.name(
                namespace, "requests_total", "A counter of the total number of HTTP requests imgproxy processed."))
        requestDuration = histogram("request_duration_seconds", "A histogram of the response latency.")
        downloadDuration = histogram(
            "download_duration_seconds", "A histogram of the source image downloading latency.")
        processingDuration = histogram("processing_duration_seconds", "A histogram of the image processing latency.")
        var spans: [String: DurationHistogram] = [:]
        for span in ["queue", "downloading", "processing", "downloading_source_image", "processing_image"] {
            spans[span] = histogram(
                "request_span_duration_seconds", "A histogram of the queue latency.", [("span", span)])
        }
        self.spans = spans
        requestsInProgress = registry.makeGauge(
            descriptor: Self.name(
                namespace, "requests_in_progress", "A gauge of the number of requests currently being in progress."))
        imagesInProgress = registry.makeGauge(
            descriptor: Self.name(
                namespace, "images_in_progress", "A gauge of the number of images currently being in progress."))
        registry.makeGauge(descriptor: Self.name(namespace, "workers", "A gauge of the number of running workers."))
            .set(Double(self.workers))
        vipsMemory = registry.makeGauge(
            descriptor: Self.name(namespace, "vips_memory_bytes", "A gauge of the vips tracked memory usage in bytes."))
        vipsMaxMemory = registry.makeGauge(
            descriptor: Self.name(
                namespace, "vips_max_memory_bytes", "A gauge of the max vips tracked memory usage in bytes."))
        vipsAllocations = registry.makeGauge(
            descriptor: Self.name(namespace, "vips_allocs", "A gauge of the number of active vips allocations."))
        utilization = registry.makeGauge(
            descriptor: Self.name(namespace, "workers_utilization", "A gauge of the workers utilization in percents."))
    }

    private static func name(_ namespace: String?, _ metric: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: namespace.flatMap { $0.isEmpty ? nil : $0 }, metricName: metric, unitName: "",
            helpText: help)
    }

    /// A request began (any route; ``requestFinished()`` ends it).
    func requestStarted() { requestsChanged(by: 1) }

    /// A request's answer is out.
    func requestFinished() { requestsChanged(by: -1) }

    private func requestsChanged(by delta: Int) {
        let count = inProgress.withLock {
            $0.requests += delta; return $0.requests
        }
        requestsInProgress.set(Double(count))
    }

    /// An image or `/info` request (not `/health` or `/metrics`) was answered with `status` after `elapsed`.
    func requestEnded(status: Int, elapsed: Duration) {
        requests.increment()
        requestDuration.record(elapsed)
        counter(.status(status)).increment()
        guard let type = Self.errorType(status) else { return }
        counter(.error(type)).increment()
    }

    /// The counter of `label`, made at its first use and kept.
    private func counter(_ label: Label) -> Counter {
        if let counter = labelled.withLock({ $0[label] }) { return counter }
        // Two first uses at once make it twice: the registry returns the same counter to the second.
        let counter =
            switch label {
            case .status(let status):
                registry.makeCounter(
                    descriptor: Self.name(namespace, "status_codes_total", "A counter of the response status codes."),
                    labels: [("status", String(status))])
            case .error(let type):
                registry.makeCounter(
                    descriptor: Self.name(
                        namespace, "errors_total", "A counter of the occurred errors separated by type."),
                    labels: [("type", type)])
            }
        labelled.withLock { $0[label] = counter }
        return counter
    }

    /// A block waited `elapsed` for a worker thread (imgproxy's `queue` span).
    func queued(in elapsed: Duration) { spans["queue"]?.record(elapsed) }

    /// A source download took `elapsed`.
    func downloaded(in elapsed: Duration) {
        downloadDuration.record(elapsed)
        spans["downloading"]?.record(elapsed)
        spans["downloading_source_image"]?.record(elapsed)
    }

    /// A transform began; ``processed(in:)`` ends it.
    func processingStarted() { imagesChanged(by: 1) }

    /// A transform took `elapsed`.
    func processed(in elapsed: Duration) {
        imagesChanged(by: -1)
        processingDuration.record(elapsed)
        spans["processing"]?.record(elapsed)
        spans["processing_image"]?.record(elapsed)
    }

    private func imagesChanged(by delta: Int) {
        let count = inProgress.withLock {
            $0.images += delta; return $0.images
        }
        imagesInProgress.set(Double(count))
        utilization.set(Double(min(count, workers)) * 100 / Double(workers))
    }

    /// libvips' memory gauges, read now (before each scrape).
    func readLibvipsMemory() {
        let memory = DWImageProcessing.libvipsMemory
        vipsMemory.set(Double(memory.bytes))
        vipsMaxMemory.set(Double(memory.highWater))
        vipsAllocations.set(Double(memory.allocations))
    }

    /// imgproxy's error types by the status it answered.
    static func errorType(_ status: Int) -> String? {
        switch status {
        case 504: "timeout"
        case 503, 429: "queue"
        case 502, 404: "downloading"
        case 422: "processing"
        case 500...: "streaming"
        default: nil
        }
    }
}
