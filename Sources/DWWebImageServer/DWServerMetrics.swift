// DWServerMetrics: the Prometheus counters behind /metrics.
import DWLocking
import DWWebImage
import Foundation
import Prometheus

/// Counters and histograms of one server, exported as Prometheus text. Every member is thread-safe (the
/// registry's and each metric's own locks).
final class DWServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let responseBytes: Counter
    private let originFetches: Counter
    private let originBytes: Counter
    private let transforms: Counter
    private let transformTime: DurationHistogram
    private let requestTime: DurationHistogram
    /// The counters every request touches, looked up once (the registry's lookup sanitises names and help texts).
    private let commonRequestCounters: [Int: Counter]
    private let memoryHits: Counter, diskHits: Counter
    /// The same events under imgproxy's names (for imgproxy's dashboards).
    let imgproxy: DWImgproxyMetrics
    /// `--workers` blocks running and waiting now, read before each scrape (``observeWorkers(_:)``).
    private let workersRunning: Gauge, workersQueued: Gauge
    private let workerLoad = DWLock<(@Sendable () -> (running: Int, waiting: Int))?>(nil)

    /// Serve's metrics, and imgproxy's under `imgproxyNamespace` (nil or empty: none, as imgproxy's default).
    init(imgproxyNamespace: String? = nil, workers: Int = 1) {
        imgproxy = DWImgproxyMetrics(registry: registry, namespace: imgproxyNamespace, workers: workers)
        responseBytes = registry.makeCounter(
            descriptor: Self.name("response_bytes", "total", "Body bytes sent to clients."))
        originFetches = registry.makeCounter(
            descriptor: Self.name(
                "origin_fetches", "total", "Downloads an origin answered (after coalescing; retries count once)."))
        originBytes = registry.makeCounter(
            descriptor: Self.name("origin_bytes", "total", "Body bytes received from origins."))
        transforms = registry.makeCounter(
            descriptor: Self.name("transforms", "total", "Variant plans rendered from a source."))
        let buckets: [Duration] = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(2.5), .seconds(5), .seconds(10)
        ]
        transformTime = registry.makeDurationHistogram(
            descriptor: Self.name("transform", "seconds", "Time of each processor step."), buckets: buckets)
        requestTime = registry.makeDurationHistogram(
            descriptor: Self.name("request", "seconds", "Time from request to response head."), buckets: buckets)
        var common: [Int: Counter] = [:]
        for status in [200, 304, 400, 403, 404, 422, 502, 504] {
            common[status] = Self.requestCounter(status, in: registry)
        }
        commonRequestCounters = common
        memoryHits = Self.cacheHitCounter("memory", in: registry)
        diskHits = Self.cacheHitCounter("disk", in: registry)
        workersRunning = registry.makeGauge(
            descriptor: Self.name("workers_running", "", "Worker threads running a transform now (of --workers)."))
        workersQueued = registry.makeGauge(
            descriptor: Self.name("workers_queued", "", "Transforms waiting for a worker thread now (of --queue)."))
    }

    /// Reads the worker pool's load with `load` before each scrape.
    func observeWorkers(_ load: @escaping @Sendable () -> (running: Int, waiting: Int)) {
        workerLoad.withLock { $0 = load }
    }

    private func requestCounter(_ status: Int) -> Counter {
        commonRequestCounters[status] ?? Self.requestCounter(status, in: registry)
    }

    private static func requestCounter(_ status: Int, in registry: PrometheusCollectorRegistry) -> Counter {
        registry.makeCounter(
            descriptor: Self.name(
                "requests", "total", "Image requests answered, by status (/health and /metrics not counted)."),
            labels: [("status", String(status))])
    }

    private static func cacheHitCounter(_ layer: String, in registry: PrometheusCollectorRegistry) -> Counter {
        registry.makeCounter(
            descriptor: Self.name("cache_hits", "total", "Images answered from the pipeline's cache, by layer."),
            labels: [("layer", layer)])
    }

    private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "dwserve", metricName: metric, unitName: unit, helpText: help)
    }

    /// One answered request.
    func answered(status: Int, bytes: Int, elapsed: Duration) {
        imgproxy.requestEnded(status: status, elapsed: elapsed)
        requestCounter(status).increment()
        if bytes > 0 { responseBytes.increment(by: Int64(bytes)) }
        requestTime.record(elapsed)
    }

    /// The pipeline's record of one finished fetch or cache hit (``DWWebImageManager/metricsHandler``).
    func pipeline(_ metrics: DWDownloadMetrics) {
        switch metrics.source {
        case .memory: memoryHits.increment()
        case .disk: diskHits.increment()
        default:
            // A download the origin answered (a refused address or a failed connection never reached it).
            if metrics.httpStatus > 0 { originFetches.increment() }
            if metrics.bytesReceived > 0 { originBytes.increment(by: metrics.bytesReceived) }
            if metrics.httpStatus > 0 { imgproxy.downloaded(in: .seconds(metrics.elapsed)) }
        }
    }

    /// A variant plan's render started on a source.
    func transformStarted() {
        transforms.increment()
        transformTotal.withLock { $0 += 1 }
    }

    /// Renders started so far.
    var transformCount: Int { transformTotal.value }
    private let transformTotal = DWLock(0)

    /// One processor step took `elapsed`.
    func transformStep(_ elapsed: Duration) {
        transformTime.record(elapsed)
        imgproxy.processed(in: elapsed)
    }

    /// One result-storage outcome: "hit", "miss", "stored", "dropped" (a write over the pending-write cap, not made)
    /// or "error" (the store failed; local work answered).
    func resultStorage(_ outcome: String) {
        registry.makeCounter(
            descriptor: Self.name(
                "result_storage", "total",
                "Result storage lookups and writes, by outcome (error: the store failed, local work answered)."),
            labels: [("outcome", outcome)]
        ).increment()
    }

    /// The Prometheus text exposition.
    func text() -> String {
        imgproxy.readLibvipsMemory()
        if let load = workerLoad.withLock({ $0 })?() {
            workersRunning.set(Double(load.running))
            workersQueued.set(Double(load.waiting))
        }
        return registry.emitToString()
    }
}
