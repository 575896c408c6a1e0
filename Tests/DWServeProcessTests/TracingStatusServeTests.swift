// OpenTelemetry traces of the built `dwfetch serve` beyond the span tree: the request span's status as imgproxy sets
// it, the `queue` span, and imgproxy's remaining OPEN_TELEMETRY variables — received by the test's collector.
import DWTestServer
import DWTestPeers
import DWTestSupport
import Foundation
import XCTest

final class TracingStatusServeTests: ServeTestCase {
    typealias Span = TracingServeTests.Span
    let png = SampleImages.png(width: 64, height: 48)

    private func tracedServer(
        _ args: [String] = [], collector: OTLPCollector,
        environment: [String: String] = [:]
    ) throws -> ServeProcess {
        try serve(
            args,
            environment: [
                "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true",
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.port)",
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_BSP_SCHEDULE_DELAY": "100"
            ].merging(environment) { $1 })
    }

    /// The spans received until `done` holds for them (or 15 s passed).
    private func spans(_ collector: OTLPCollector, until done: ([Span]) -> Bool) -> [Span] {
        var spans: [Span] = []
        _ = collector.wait(timeout: 15) { exports in
            spans = exports.filter { $0.path == "/v1/traces" }.flatMap { TracingServeTests.spans(in: $0.body) }
            return done(spans)
        }
        return spans
    }

    /// imgproxy's request span: `http.status_code` (and `http.response.status_code`) on every answer; an answer made
    /// from an error, 4xx or 5xx, is an error span with an `exception` event (imgproxy's SendError); a 200 is not.
    func testTheRequestSpanCarriesTheStatusAsImgproxySetsIt() throws {
        origin.setRoute("/a.png", .ok(png))
        origin.setRoute("/gone.png", .status(404))
        let collector = try OTLPCollector()
        defer { collector.stop() }
        let server = try tracedServer(collector: collector)
        let cases = [
            ("4bf92f3577b34da6a3ce929d0e0e4711", origin.url("/a.png"), 200),
            ("4bf92f3577b34da6a3ce929d0e0e4712", origin.url("/gone.png"), 404),
            ("4bf92f3577b34da6a3ce929d0e0e4713", "http://127.0.0.1:1/refused.png", 502)
        ]
        let parent = "00f067aa0ba902b7"
        for (trace, source, status) in cases {
            let answer = try server.get(
                ProxyPath.plain(source, options: "rs:fit:20:20"),
                headers: ["traceparent": "00-\(trace)-\(parent)-01"])
            XCTAssertEqual(answer.status, status, "\(source): \(answer.text)")
        }
        let spans = spans(collector) { spans in
            cases.allSatisfy { trace, _, _ in spans.contains { $0.trace == trace && $0.parent == parent } }
        }
        for (trace, source, status) in cases {
            let request = try XCTUnwrap(spans.first { $0.trace == trace && $0.parent == parent }, "\(source): \(spans)")
            XCTAssertEqual(request.attributes["http.status_code"], String(status), "\(request)")
            XCTAssertEqual(request.attributes["http.response.status_code"], String(status), "\(request)")
            XCTAssertEqual(request.status, status == 200 ? 0 : 2, "\(source): \(request)")
            XCTAssertEqual(request.events.contains("exception"), status != 200, "\(source): \(request)")
        }
    }

    /// `queue`: the wait for a worker, beside `downloading_source_image` and `processing_image` under `image`. With
    /// `--workers 1 --queue 1` and the worker busy, a request that waits has a long `queue` span ending where its
    /// `processing_image` starts; one refused by the full queue (503) has an error `queue` span and no processing.
    func testTheQueueSpanIsTheWaitForAWorker() throws {
        origin.setRoute("/big.png", .ok(SampleImages.png(width: 1000, height: 1000)))
        origin.setRoute("/wait.png", .ok(png))
        origin.setRoute("/refused.png", .ok(png))
        let collector = try OTLPCollector()
        defer { collector.stop() }
        let server = try tracedServer(
            ["--workers", "1", "--queue", "1", "--request-timeout", "120"], collector: collector)
        let holder = Background(server, ProxyPath.plain(origin.url("/big.png"), options: BoundsTests.slowTransform))
        XCTAssertTrue(try BoundsTests.transforms(server, are: 1), "its transform holds the one worker")
        let waiter = Background(server, ProxyPath.plain(origin.url("/wait.png"), options: "rs:fit:20:20"))
        // Its download is counted in the step that hands its variant to the worker pool: it waits in the queue's one
        // place.
        XCTAssertTrue(
            try eventually(timeout: 30, interval: 0.02) { try server.metric("dwserve_origin_fetches_total") == 2 },
            "the waiter's source downloaded")
        let refused = try server.get(ProxyPath.plain(origin.url("/refused.png"), options: "rs:fit:20:20"))
        XCTAssertEqual(refused.status, 503, refused.text)
        XCTAssertEqual(waiter.wait()?.status, 200)
        XCTAssertEqual(holder.wait()?.status, 200)
        func trace(of source: String, in spans: [Span]) -> String? {
            spans.first { $0.name == "image" && $0.attributes["image_url"] == origin.url(source) }?.trace
        }
        let spans = spans(collector) { spans in
            ["/wait.png", "/refused.png"].allSatisfy { source in
                guard let trace = trace(of: source, in: spans) else { return false }
                return spans.contains { $0.trace == trace && $0.name == "queue" }
            }
        }
        func span(_ name: String, of source: String) throws -> Span {
            let trace = try XCTUnwrap(trace(of: source, in: spans), "\(source): \(spans)")
            return try XCTUnwrap(spans.first { $0.trace == trace && $0.name == name }, "\(name) of \(source): \(spans)")
        }
        let image = try span("image", of: "/wait.png"), queue = try span("queue", of: "/wait.png")
        let processing = try span("processing_image", of: "/wait.png")
        XCTAssertEqual(queue.parent, image.id, "queue is a child of the image span, as the phase spans are")
        XCTAssertEqual(processing.parent, image.id)
        XCTAssertNotEqual(queue.status, 2, "\(queue)")
        XCTAssertGreaterThan(queue.end - queue.start, 200_000_000, "it waited for the busy worker: \(queue)")
        XCTAssertLessThanOrEqual(queue.end, processing.start, "the wait ends before the transform starts")
        XCTAssertGreaterThanOrEqual(queue.start, try span("downloading_source_image", of: "/wait.png").end)
        let full = try span("queue", of: "/refused.png")
        XCTAssertEqual(full.status, 2, "the full queue's refusal: \(full)")
        XCTAssertTrue(full.events.contains("exception"), "\(full)")
        XCTAssertEqual(full.parent, try span("image", of: "/refused.png").id)
        XCTAssertNil(spans.first { $0.trace == full.trace && $0.name == "processing_image" }, "no transform ran")
    }

    /// imgproxy 3's remaining variables: CONNECTION_TIMEOUT (seconds), PROPAGATORS (`tracecontext,baggage`
    /// continues a traceparent; `none` does not), GRPC_INSECURE and LOGGER_NAME (no effect over OTLP/HTTP without
    /// exported logs, as in imgproxy) start the server and traces arrive.
    func testImgproxy3sConnectionTimeoutAndPropagatorsAreRead() throws {
        origin.setRoute("/a.png", .ok(png))
        let collector = try OTLPCollector()
        defer { collector.stop() }
        let continued = try tracedServer(
            collector: collector,
            environment: [
                "IMGPROXY_OPEN_TELEMETRY_CONNECTION_TIMEOUT": "5",
                "IMGPROXY_OPEN_TELEMETRY_PROPAGATORS": "tracecontext,baggage",
                "IMGPROXY_OPEN_TELEMETRY_GRPC_INSECURE": "true", "IMGPROXY_OPEN_TELEMETRY_LOGGER_NAME": "imgproxy"
            ])
        let ignoring = try tracedServer(
            collector: collector, environment: ["IMGPROXY_OPEN_TELEMETRY_PROPAGATORS": "none"])
        let (first, second) = ("4bf92f3577b34da6a3ce929d0e0e4721", "4bf92f3577b34da6a3ce929d0e0e4722")
        XCTAssertEqual(
            try continued.get(
                ProxyPath.plain(origin.url("/a.png")), headers: ["traceparent": "00-\(first)-00f067aa0ba902b7-01"]
            ).status, 200)
        XCTAssertEqual(
            try ignoring.get(
                ProxyPath.plain(origin.url("/a.png"), options: "w:10"),
                headers: ["traceparent": "00-\(second)-00f067aa0ba902b7-01"]
            ).status, 200)
        let spans = spans(collector) { spans in
            spans.contains { $0.trace == first } && spans.filter { $0.name == "image" }.count >= 2
        }
        XCTAssertTrue(spans.contains { $0.trace == first && $0.name == "image" }, "tracecontext continued: \(spans)")
        XCTAssertFalse(spans.contains { $0.trace == second }, "none: the traceparent is not read: \(spans)")
        XCTAssertEqual(spans.filter { $0.name == "image" }.count, 2, "both servers traced: \(spans)")
    }

    /// Values swift-otel would stop the process on, and bad imgproxy values: exit 2 and a line naming the variable.
    func testUnbuiltOrBadTelemetryValuesStopTheStart() throws {
        for (name, value) in [
            ("OTEL_PROPAGATORS", "tracecontext,baggage"), ("OTEL_TRACES_SAMPLER", "xray"),
            ("IMGPROXY_OPEN_TELEMETRY_PROPAGATORS", "b3"),
            ("IMGPROXY_OPEN_TELEMETRY_CONNECTION_TIMEOUT", "soon"),
            ("IMGPROXY_OPEN_TELEMETRY_GRPC_INSECURE", "maybe"),
            ("IMGPROXY_OPEN_TELEMETRY_SERVER_CERT", "not a certificate"),
            ("IMGPROXY_OPEN_TELEMETRY_CLIENT_CERT", "-----BEGIN CERTIFICATE-----\\nAA==\\n-----END CERTIFICATE-----")
        ] {
            let (status, text) = try ServeProcess.startFailure(
                [],
                environment: [
                    "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
                    name: value
                ])
            XCTAssertEqual(status, 2, "\(name)=\(value): \(text)")
            XCTAssertTrue(text.contains(name), "\(name)=\(value): \(text)")
        }
    }

    /// imgproxy's SERVER_CERT, CLIENT_CERT and CLIENT_KEY (PEM text, `\n` for line breaks) with PROTOCOL `https`:
    /// the exporter completes the handshake with a TLS collector whose self-signed certificate only SERVER_CERT
    /// makes trusted, and which asks for a client certificate (mutual TLS) verified against the same one.
    func testTheTLSVariablesReachACollectorOverMutualTLS() throws {
        origin.setRoute("/a.png", .ok(png))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dwotel-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (cert, key, received) = (
            directory.appendingPathComponent("cert.pem"), directory.appendingPathComponent("key.pem"),
            directory.appendingPathComponent("received.txt")
        )
        let certificate = try ProcessRun.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                "-keyout", key.path, "-out", cert.path
            ])
        XCTAssertEqual(certificate.status, 0, certificate.errors)
        let port = try PeerProcess.freePort()
        _ = FileManager.default.createFile(atPath: received.path, contents: nil)
        let collector = Process()
        collector.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        collector.arguments = [
            "s_server", "-quiet", "-accept", "127.0.0.1:\(port)", "-cert", cert.path, "-key", key.path,
            "-Verify", "1", "-CAfile", cert.path
        ]
        collector.standardOutput = try FileHandle(forWritingTo: received)
        let errors = directory.appendingPathComponent("errors.txt")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        collector.standardError = try FileHandle(forWritingTo: errors)
        let input = Pipe()  // open while the test runs: s_server ends a connection at its input's end
        collector.standardInput = input
        try collector.run()
        defer { collector.terminate(); collector.waitUntilExit() }
        XCTAssertTrue(
            eventually(timeout: 10, interval: 0.02) { PeerProcess.accepts(port) }, "openssl s_server listens")
        func variable(_ file: URL) throws -> String {
            try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "\n", with: "\\n")
        }
        let server = try serve(
            [],
            environment: [
                "IMGPROXY_OPEN_TELEMETRY_ENDPOINT": "127.0.0.1:\(port)", "IMGPROXY_OPEN_TELEMETRY_PROTOCOL": "https",
                "IMGPROXY_OPEN_TELEMETRY_SERVER_CERT": try variable(cert),
                "IMGPROXY_OPEN_TELEMETRY_CLIENT_CERT": try variable(cert),
                "IMGPROXY_OPEN_TELEMETRY_CLIENT_KEY": try variable(key), "OTEL_BSP_SCHEDULE_DELAY": "100"
            ])
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/a.png"))).status, 200)
        let arrived = eventually(timeout: 15, interval: 0.1) {
            // s_server verifies the client's certificate, which the exporter sends only once it has verified the
            // server's (TLS 1.3: after the server's Finished): both directions of trust hold.
            ((try? String(contentsOf: errors, encoding: .utf8)) ?? "").contains("verify return:1")
                || ((try? String(contentsOf: received, encoding: .utf8)) ?? "").contains("POST /v1/traces")
        }
        XCTAssertTrue(
            arrived,
            "the collector received: \((try? String(contentsOf: received, encoding: .utf8)) ?? ""); its errors: \((try? String(contentsOf: errors, encoding: .utf8)) ?? ""); serve: \(server.stderr)"
        )
        try input.fileHandleForWriting.close()
    }
}
