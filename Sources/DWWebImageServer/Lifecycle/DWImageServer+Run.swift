// DWImageServer.run: the whole server — router, HTTP/1.1 with draining connections, signals, malloc tuning.
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

extension DWImageServer {
    /// Serves until SIGTERM or SIGINT, then stops accepting, waits until every accepted response has been written to
    /// its socket in full (or its client has gone), at most ``DWServeConfiguration/shutdownTimeout`` seconds (what is
    /// cut then is logged with its count), and returns. A second signal exits the process at once with 128 + the
    /// signal's number. `onListening` is called (on an event loop) with the bound port once connections are accepted,
    /// `onMetricsListening` with the metrics listener's (only with ``DWServeConfiguration/metricsBind``). `services`
    /// (a trace exporter) run beside the server and stop after it, so what it recorded last is still sent.
    public func run(
        onListening: @escaping @Sendable (Int) -> Void = { _ in },
        onMetricsListening: @escaping @Sendable (Int) -> Void = { _ in },
        services: [any Service] = []
    ) async throws {
        if configuration.tunesMalloc { startMallocTuning() }
        defer { encodeBudget?.stop() }  // put-off encodes stop with the server
        let drain = DWConnectionDrain(logger: lifecycleLogger, maxPerClient: configuration.connectionsPerClient)
        let app = Application(
            responder: serveResponder(),
            server: connectionServer(drain: drain),
            configuration: applicationConfiguration,
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        // A group stops its services in reverse order: the server first, the exporters after it.
        let group = ServiceGroup(
            configuration: .init(
                services: services + [app] + metricsServices(onListening: onMetricsListening), logger: logger))
        let signals = DWShutdownSignals(logger: lifecycleLogger) {
            drain.beginShutdown()
            Task { await group.triggerGracefulShutdown() }
        }
        defer { signals.cancel() }

        let (ended, continuation) = AsyncStream<Void>.makeStream()
        let serving = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        let deadline = Task {
            guard await drain.waitForShutdown() else { return }
            try? await Task.sleep(for: .seconds(configuration.shutdownTimeout))
            guard !Task.isCancelled else { return }
            drain.cutRemaining(after: configuration.shutdownTimeout)
            continuation.finish()
        }
        for await _ in ended {}
        deadline.cancel()
        drain.finish()
        if drain.isForcing { return }  // the deadline passed: return without waiting for the cut responses' handlers
        try await serving.value
    }

    /// The whole server's routes: the request spans first when tracing is on, then
    /// ``mount(on:at:refusingOtherMethods:)`` with 405 for other methods, image requests past the router's trie
    /// (``DWServeResponder``). On the thread that sets the server up.
    func serveResponder() -> DWServeResponder {
        let routes = DWServeRoutes(
            router: Router(context: DWRequestContext.self), prefix: Self.trimmingSlashes(configuration.pathPrefix))
        if configuration.tracing { addTracing(to: routes) }
        mount(on: routes, at: configuration.pathPrefix, refusingOtherMethods: true)
        return routes.responder()
    }

    /// HTTP/1.1 with one ``DWConnectionHandler`` per connection (made for each): draining, the header, idle and write
    /// timers, the per-client share. The public listener and the metrics listener both use it.
    func connectionServer(drain: DWConnectionDrain) -> HTTPServerBuilder {
        let (header, idle, write) = (configuration.headerTimeout, configuration.idleTimeout, configuration.writeTimeout)
        return .http1(
            configuration: .init(additionalChannelHandlers: [
                DWConnectionHandler(drain: drain, headerTimeout: header, idleTimeout: idle, writeTimeout: write)
            ]))
    }

    /// The shutdown's own lines (draining, cut) at notice level even when the access log is off.
    var lifecycleLogger: Logger {
        var lifecycle = logger
        lifecycle.logLevel = min(logger.logLevel, .notice)
        return lifecycle
    }

    /// Caps glibc's malloc arenas at one (threads started from here on allocate in the main arena; those already
    /// running keep theirs, unless ``DWImageServer/capMallocArenas()`` ran first, as in `dwfetch serve`), keeps big
    /// blocks in the heap (``DWMallocTuning/applyHeapSettings()``) and gives free pages back to the kernel every
    /// 5 s while transforms run (a detached background task, polling). One arena rather than two: over 10,000 new
    /// variants (`bench/serve/memory`) a second arena held ~25 MiB more at the peak, freed but fragmented, for no CPU
    /// that the benchmarks could tell apart.
    private func startMallocTuning() {
        DWMallocTuning.applyHeapSettings()
        Task.detached(priority: .background) { [metrics] in
            var last = metrics.transformCount
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(5))
                let now = metrics.transformCount
                if now != last { DWMallocTuning.trim() }
                last = now
            }
        }
    }
}
