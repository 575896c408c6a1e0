// DWEncodeBudget: `--encode-budget` — what an AVIF or JPEG XL encode is expected to cost (learned from this process's
// own encodes), and the encodes put off to the background: bounded, one per key, on one thread of their own.
import DWLocking
import DWWebImage
import DWWebImageProcessing
import Foundation
import Prometheus

/// `dwfetch serve --encode-budget MS`: its settings, a plain value (part of ``DWServeConfiguration``).
public struct DWEncodeBudgetSettings: Sendable, Hashable {
    /// The longest an AVIF or JPEG XL encode that `Accept` picked may be expected to take before the answer goes out
    /// in the next format instead (`--encode-budget`, milliseconds); nil (default): no budget, every encode runs.
    public var budget: Double?
    /// Put-off encodes waiting or running at most (`--background-encodes`, default 2); one more is dropped (made on
    /// a later request). They run one at a time on a thread of their own.
    public var backgroundEncodes = 2
    /// The `max-age` of an answer in the stand-in format (60 s, or `--max-age` when lower): a CDN asks again soon,
    /// when the put-off variant is likely made.
    public var standInMaxAge = 60

    /// No budget.
    public init() {}
}

/// One server's encode budget: the expected cost per megapixel of each weighed format, an exponential average of
/// this process's own encodes seeded with a conservative constant, and the put-off encodes by cache key.
/// Thread-safe: one lock over the costs and the pending keys.
final class DWEncodeBudget: Sendable {
    /// The formats weighed: the encodes that cost far more than WebP's.
    static let weighed: Set<DWImageFormat> = [.avif, .jxl]
    /// The formats whose cost is learned: the weighed ones, and WebP, the usual stand-in.
    static let learned: Set<DWImageFormat> = [.avif, .jxl, .webp]
    /// Milliseconds per megapixel before this process has measured any. AVIF and JPEG XL: about 4× what
    /// bench/serve/encode-cost measures for libvips at serve's default settings on a 2-core machine (AVIF ~30, JPEG XL
    /// ~35), so a first guess defers rather than blocks; WebP: about what it measures (~60), so a stand-in is not
    /// thought cheaper than it is.
    static let seeds: [DWImageFormat: Double] = [.avif: 120, .jxl: 150, .webp: 60]
    /// Weight of the newest encode in the average.
    static let smoothing = 0.2
    /// Encodes of fewer pixels are not learned from: their fixed cost would count as a cost per megapixel.
    static let minimumLearnedPixels = 65_536

    private struct State {
        var costs = DWEncodeBudget.seeds
        /// Encodes learned from, by format.
        var samples: [DWImageFormat: Int] = [:]
        /// Put-off encodes by variant key: the format put off, and the task making it.
        var pending: [String: (format: DWImageFormat, task: Task<Void, Never>?)] = [:]
        var stopped = false
    }

    let settings: DWEncodeBudgetSettings
    let budget: Double
    private let state = DWLock(State())
    /// The put-off encodes' one thread (`dwencode.0`) and their queue: beside the `--workers` threads, never one of
    /// them; each encode starts only once a `--workers` thread idles (``waitForIdleWorker(in:)``). Not at a lower
    /// priority: libvips hands work to pooled threads, which inherit the priority of the thread that made them and
    /// later run foreground transforms too; the saver itself runs in the encode helper at SCHED_IDLE instead
    /// (``DWEncodeGate/inIdleHelper(report:)``), this thread waiting for it.
    let pool: DWWorkerPool
    private let counters: [String: Counter]
    /// `dwserve_background_encode_helpers_total` by the helper's scheduling (``DWEncodeGate/helperReport``).
    private let policyCounters: [String: Counter]
    private let pendingGauge: Gauge
    private let costGauges: [DWImageFormat: Gauge]

    /// A budget of `budget` ms with `settings`; its counters in `registry`.
    init(budget: Double, settings: DWEncodeBudgetSettings, registry: PrometheusCollectorRegistry) {
        (self.budget, self.settings) = (budget, settings)
        pool = DWWorkerPool(workers: 1, queue: max(0, settings.backgroundEncodes - 1), name: "dwencode")
        var counters: [String: Counter] = [:]
        for outcome in ["deferred", "started", "waited", "deduplicated", "dropped", "stored", "failed"] {
            counters[outcome] = registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    namespace: "dwserve", metricName: "background_encodes", unitName: "total",
                    helpText: "Encodes put off by --encode-budget, by outcome (deferred: a "
                        + "request answered in a stand-in format; waited: an encode held back "
                        + "until a worker idled)."),
                labels: [("outcome", outcome)])
        }
        self.counters = counters
        policyCounters = Dictionary(
            uniqueKeysWithValues: ["idle", "nice", "normal"].map { policy in
                (
                    policy,
                    registry.makeCounter(
                        descriptor: MetricNameDescriptor(
                            namespace: "dwserve", metricName: "background_encode_helpers", unitName: "total",
                            helpText: "Put-off encodes saved in the encode helper process, by its scheduling "
                                + "(idle: SCHED_IDLE; nice: nice 19, SCHED_IDLE refused; normal: neither)."),
                        labels: [("policy", policy)])
                )
            })
        var costGauges: [DWImageFormat: Gauge] = [:]
        for format in Self.learned {
            let gauge = registry.makeGauge(
                descriptor: MetricNameDescriptor(
                    namespace: "dwserve", metricName: "encode_cost", unitName: "ms_per_megapixel",
                    helpText: "The expected encode time per megapixel that --encode-budget "
                        + "weighs, learned from this process's encodes."),
                labels: [("format", format.rawValue)])
            gauge.set(Self.seeds[format] ?? 0)
            costGauges[format] = gauge
        }
        self.costGauges = costGauges
        pendingGauge = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "dwserve", metricName: "background_encodes_pending", unitName: "",
                helpText: "Put-off encodes waiting or running now (at most --background-encodes)."))
    }

    /// Counts one `outcome` of ``DWServerMetrics``' `dwserve_background_encodes_total`.
    func count(_ outcome: String) { counters[outcome]?.increment() }

    /// Counts one encode saved in the helper at `policy` (`dwserve_background_encode_helpers_total`).
    func countHelper(_ policy: String) { policyCounters[policy]?.increment() }

    /// The gate a negotiated plan carries: it admits a weighed encode whose expected time fits the budget, or is no
    /// more than the stand-in's (a stand-in that costs more would only make the wait longer: AVIF at serve's default
    /// speed 9 is cheaper than WebP at effort 4), and learns from every encode.
    var gate: DWEncodeGate {
        DWEncodeGate(
            formats: Self.weighed,
            admits: { [self] format, instead, pixels in admits(format, instead: instead, pixels: pixels) },
            record: { [self] format, pixels, time in learn(format, pixels: pixels, time: time) })
    }

    /// Whether an encode of `pixels` in `format` runs now rather than `instead` (nil: a format not learned, taken as
    /// cheap: JPEG, PNG): within the budget, or, once `format` has been measured ``minimumSamples`` times (a seed
    /// against one cold first WebP would prove nothing), expected to cost no more than `instead`.
    func admits(_ format: DWImageFormat, instead: DWImageFormat?, pixels: Int) -> Bool {
        let expected = expectedMilliseconds(format, pixels: pixels)
        guard expected > budget else { return true }
        let measured = state.withLock { $0.samples[format, default: 0] } >= Self.minimumSamples
        return measured && expected <= instead.map { expectedMilliseconds($0, pixels: pixels) } ?? 0
    }

    /// Encodes of a format learned from before it may be admitted for being cheaper than its stand-in.
    static let minimumSamples = 3

    /// The expected encode time of `pixels` in `format`, ms (0 for a format not learned).
    func expectedMilliseconds(_ format: DWImageFormat, pixels: Int) -> Double {
        let perMegapixel = state.withLock { $0.costs[format] } ?? 0
        return perMegapixel * Double(pixels) / 1_000_000
    }

    /// One encode of `pixels` in `format` took `time`: the format's cost moves towards it.
    func learn(_ format: DWImageFormat, pixels: Int, time: Duration) {
        guard Self.learned.contains(format), pixels >= Self.minimumLearnedPixels else { return }
        let sample = (time / .milliseconds(1)) / (Double(pixels) / 1_000_000)
        let cost = state.withLock { s -> Double in
            let old = s.costs[format] ?? sample
            let cost = old + Self.smoothing * (sample - old)
            s.costs[format] = cost
            s.samples[format, default: 0] += 1
            return cost
        }
        costGauges[format]?.set(cost)
    }

    /// The format put off for `key` while its encode is pending; nil when none is.
    func pendingFormat(_ key: String) -> DWImageFormat? { state.withLock { $0.pending[key]?.format } }

    /// What ``start(_:format:_:)`` did.
    enum Start { case started, deduplicated, dropped }

    /// Starts `work` as `key`'s put-off encode (a detached background task) unless one is pending (deduplicated),
    /// ``DWEncodeBudgetSettings/backgroundEncodes`` are (dropped), or the server is stopping (dropped).
    func start(_ key: String, format: DWImageFormat, _ work: @escaping @Sendable () async -> Void) -> Start {
        let outcome = state.withLock { s -> Start in
            if s.pending[key] != nil { return .deduplicated }
            guard !s.stopped, s.pending.count < settings.backgroundEncodes else { return .dropped }
            s.pending[key] = (format, nil)
            s.pending[key]?.task = Task.detached(priority: .background) { [self] in
                await work()
                finish(key)
            }
            return .started
        }
        count(outcome == .started ? "started" : outcome == .deduplicated ? "deduplicated" : "dropped")
        pendingGauge.set(Double(state.withLock { $0.pending.count }))
        return outcome
    }

    /// On the budget's thread, before a put-off encode: blocks until `transforms` (the `--workers` pool) has a worker
    /// idle with no block waiting, so that the encode never takes CPU from transforms clients wait for; counts
    /// "waited" when it had to. Throws 10007 when the encode was stopped meanwhile (the server is stopping).
    func waitForIdleWorker(in transforms: DWWorkerPool) throws(DWWebImageError) {
        let cancellation = DWWorkCancellation.current
        if !transforms.hasIdleWorker { count("waited") }
        transforms.waitForIdleWorker { cancellation?.isCancelled ?? false }
        if cancellation?.isCancelled ?? false { throw DWWorkCancellation.stopped }
    }

    private func finish(_ key: String) {
        let left = state.withLock { s -> Int in
            s.pending[key] = nil
            return s.pending.count
        }
        pendingGauge.set(Double(left))
    }

    /// Stops every pending encode (a running one is stopped by libvips' kill; nothing half-made is stored) and
    /// starts no more. Called once the server has stopped serving.
    func stop() {
        let tasks = state.withLock { s -> [Task<Void, Never>] in
            s.stopped = true
            return s.pending.values.compactMap(\.task)
        }
        for task in tasks { task.cancel() }
    }
}
