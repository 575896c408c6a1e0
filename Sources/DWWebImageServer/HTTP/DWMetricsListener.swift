// The admin listener: `/metrics` and `POST /purge` only on `--metrics-bind HOST:PORT`, never on the public port.
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

extension DWImageServer {
    /// The metrics listener as a service run beside the public one (none without `--metrics-bind`): `GET /metrics`
    /// answers the Prometheus text, `POST /purge` purges sources (``purgeResponse(_:)``), anything else 404.
    /// `onListening` gets its bound port. Runs on Hummingbird's event loops, with the public listener's connection
    /// timers; stops with the public listener.
    func metricsServices(onListening: @escaping @Sendable (Int) -> Void) -> [any Service] {
        guard let bind = configuration.metricsBind else { return [] }
        let metrics = self.metrics
        let responder = CallbackResponder<BasicRequestContext> { [self] request, _ in
            if request.method == .post, request.head.path == "/purge" { return await purgeResponse(request) }
            if request.method == .post, request.head.path == "/warm" { return await warmResponse(request) }
            guard request.method == .get || request.method == .head, request.head.path == "/metrics" else {
                return DWResponses.error(.notFound, "not found")
            }
            var response = DWResponses.text(
                .ok, metrics.text(), contentType: "text/plain; version=0.0.4; charset=utf-8")
            if request.method == .head { response.body = ResponseBody() }
            return response
        }
        var logger = Logger(label: "dwfetch.serve.metrics")
        logger.logLevel = configuration.logLevel
        // The public listener's connection handling: header, idle and write timers, and a quarter
        // of the 64 connections per client address, so silent sockets cannot keep the scraper out.
        let drain = DWConnectionDrain(logger: logger, maxPerClient: 16)
        let app = Application(
            responder: responder,
            server: connectionServer(drain: drain),
            configuration: .init(
                address: .hostname(bind.host, port: bind.port), serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(64)),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        return [app]
    }

    /// The Prometheus text of this server's counters (what the metrics listener serves), for an embedder that
    /// exposes it its own way. Any thread.
    public func metricsText() -> String { metrics.text() }
}
