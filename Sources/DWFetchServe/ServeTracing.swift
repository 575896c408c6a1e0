// ServeTracing: OpenTelemetry traces for `dwfetch serve` — swift-otel's OTLP/HTTP exporter bootstrapped as the
// process's tracer when --open-telemetry (IMGPROXY_OPEN_TELEMETRY_ENABLE) asks for it.
import ArgumentParser
import DWFetchCLI
import Foundation
import OTel
import ServiceLifecycle
import Tracing

/// Bootstraps the tracer once, on the main thread before the server starts. The standard `OTEL_*` variables apply
/// (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_PROTOCOL`
/// `http/protobuf` or `http/json`, `OTEL_SERVICE_NAME`, `OTEL_BSP_*`, `OTEL_TRACES_SAMPLER`, …), read by swift-otel;
/// `--open-telemetry-endpoint` sets the endpoint over them. Only traces: logs and metrics stay serve's own.
enum ServeTracing {
    /// The exporter's service (to run beside the server), after bootstrapping the tracer; nil when traces are off.
    /// A gRPC protocol, which this build does not carry, is a ValidationError (exit 2).
    static func bootstrap(_ options: ServeOptions, environment: [String: String]) throws -> (any Service)? {
        guard options.openTelemetry || options.openTelemetryEndpoint != nil else { return nil }
        // imgproxy 3's IMGPROXY_OPEN_TELEMETRY_PROTOCOL (grpc, http, https: the last two OTLP/HTTP) under OTEL's.
        if let text = environment["IMGPROXY_OPEN_TELEMETRY_PROTOCOL"],
            !["", "http", "https", "http/protobuf"]
                .contains(text.lowercased()), environment["OTEL_EXPORTER_OTLP_PROTOCOL"] == nil
        {
            throw ValidationError(
                "IMGPROXY_OPEN_TELEMETRY_PROTOCOL=\(text): dwfetch serve exports traces over OTLP/HTTP "
                    + "only (http or https)")
        }
        for name in ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]
        where environment[name]?.lowercased() == "grpc" {
            throw ValidationError(
                "\(name)=grpc: dwfetch serve exports traces over OTLP/HTTP only (http/protobuf or "
                    + "http/json)")
        }
        try refuseUnbuilt(environment)
        var configuration = OTel.Configuration.default
        configuration.serviceName = "imgproxy"  // imgproxy's, so its dashboards find the traces; OTEL_SERVICE_NAME wins
        if let name = environment["IMGPROXY_OPEN_TELEMETRY_SERVICE_NAME"], !name.isEmpty {
            configuration.serviceName = name  // imgproxy 3's name for OTEL_SERVICE_NAME, which still wins
        }
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        if let endpoint = options.openTelemetryEndpoint {
            // imgproxy 3's IMGPROXY_OPEN_TELEMETRY_ENDPOINT is host:port; an OTLP/HTTP endpoint takes a scheme.
            let scheme =
                environment["IMGPROXY_OPEN_TELEMETRY_PROTOCOL"]?.lowercased() == "https" ? "https://" : "http://"
            let base = endpoint.contains("://") ? endpoint : scheme + endpoint
            configuration.traces.otlpExporter.endpoint = (base.hasSuffix("/") ? base : base + "/") + "v1/traces"
        }
        if let text = environment["IMGPROXY_OPEN_TELEMETRY_CONNECTION_TIMEOUT"],
            let seconds = Int(text.trimmingCharacters(in: .whitespaces)), seconds > 0
        {
            configuration.traces.otlpExporter.timeout = .seconds(seconds)  // OTEL_EXPORTER_OTLP_TIMEOUT wins
        }
        if let text = environment["IMGPROXY_OPEN_TELEMETRY_PROPAGATORS"] {
            let names = ServeEnvironment.list(text)  // checked by ServeEnvironment; OTEL_PROPAGATORS wins
            configuration.propagators =
                names.contains("none") ? [.none] : names.contains("tracecontext") ? [.traceContext] : []
        }
        let files = try applyTLS(environment, to: &configuration)
        defer { removeReadOnce(files) }
        let (tracer, service) = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(tracer)
        return service
    }

    /// The standard variables' values swift-otel reads but has not built (it would stop the process when the tracer
    /// is made): a ValidationError naming the variable. Propagators other than `tracecontext` and `none` (W3C
    /// baggage, B3, Jaeger, X-Ray, OT), and the X-Ray and Jaeger-remote samplers.
    static func refuseUnbuilt(_ environment: [String: String]) throws {
        if let text = environment["OTEL_PROPAGATORS"] {
            for name in ServeEnvironment.list(text.lowercased()) where !["tracecontext", "none"].contains(name) {
                throw ValidationError(
                    "OTEL_PROPAGATORS: '\(name)' is not built into dwfetch serve (tracecontext or "
                        + "none); unset it or set tracecontext")
            }
        }
        let sampler = environment["OTEL_TRACES_SAMPLER"]?.lowercased() ?? ""
        if ["xray", "jaeger_remote", "parentbased_jaeger_remote"].contains(sampler) {
            throw ValidationError(
                "OTEL_TRACES_SAMPLER: '\(sampler)' is not built into dwfetch serve (always_on, "
                    + "always_off, traceidratio and their parentbased_ forms)")
        }
    }
}
