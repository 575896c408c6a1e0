// OpenTelemetry traces of the built `dwfetch serve`, received by a collector the test starts: the request's span
// continues the client's W3C traceparent, and the image and response spans are its children.
import DWTestServer
import Foundation
import XCTest

final class TracingServeTests: ServeTestCase {
    let png = SampleImages.png(width: 64, height: 48)

    func testARequestsSpansArriveWithTheirParents() throws {
        origin.setRoute("/a.png", .ok(png))
        let collector = try OTLPCollector()
        defer { collector.stop() }
        let server = try serve(
            [],
            environment: [
                "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true",
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.port)",
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_SERVICE_NAME": "dw-trace-test",
                "OTEL_BSP_SCHEDULE_DELAY": "100"
            ])
        let (trace, parent) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7")
        let answer = try server.get(
            ProxyPath.plain(origin.url("/a.png"), options: "rs:fit:20:20"),
            headers: ["traceparent": "00-\(trace)-\(parent)-01"])
        XCTAssertEqual(answer.status, 200, answer.text)
        var spans: [Span] = []
        let arrived = collector.wait(timeout: 15) { exports in
            spans = exports.filter { $0.path == "/v1/traces" }.flatMap { Self.spans(in: $0.body) }
            return Set(spans.filter { $0.trace == trace }.map(\.name)).isSuperset(of: ["image", "streaming"])
        }
        XCTAssertTrue(arrived, "spans: \(spans), exports: \(collector.exports.map(\.path))")
        let request = try XCTUnwrap(spans.first { $0.trace == trace && $0.parent == parent }, "\(spans)")
        XCTAssertEqual(request.name, "/**", "named after the image route, as the router names it")
        for name in ["image", "streaming"] {
            let child = try XCTUnwrap(spans.first { $0.name == name && $0.trace == trace }, "\(spans)")
            XCTAssertEqual(child.parent, request.id, "\(name) is a child of the request's span")
        }
        let json = collector.exports.first { $0.path == "/v1/traces" }.map { String(decoding: $0.body, as: UTF8.self) }
        XCTAssertTrue(json?.contains("dw-trace-test") == true, "OTEL_SERVICE_NAME: \(json ?? "")")
    }

    /// imgproxy 3's IMGPROXY_OPEN_TELEMETRY_ENDPOINT (host:port) with the default http/protobuf; off, no export.
    func testTheEndpointVariableSendsProtobufAndNothingIsSentWhenOff() throws {
        origin.setRoute("/a.png", .ok(png))
        let collector = try OTLPCollector()
        defer { collector.stop() }
        let off = try serve([], environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.port)"])
        XCTAssertEqual(try off.get(ProxyPath.plain(origin.url("/a.png"))).status, 200)
        let server = try serve(
            [],
            environment: [
                "IMGPROXY_OPEN_TELEMETRY_ENDPOINT": "127.0.0.1:\(collector.port)", "OTEL_BSP_SCHEDULE_DELAY": "100"
            ])
        let trace = "0af7651916cd43dd8448eb211c80319c"
        XCTAssertEqual(
            try server.get(
                ProxyPath.plain(origin.url("/a.png")),
                headers: ["traceparent": "00-\(trace)-b7ad6b7169203331-01"]
            ).status, 200)
        let traceBytes = Data((0..<16).map { UInt8(trace.dropFirst($0 * 2).prefix(2), radix: 16)! })
        XCTAssertTrue(
            collector.wait(timeout: 15) { exports in
                exports.contains {
                    $0.path == "/v1/traces" && $0.contentType.contains("protobuf")
                        && $0.body.range(of: traceBytes) != nil
                }
            }, "\(collector.exports.map { ($0.path, $0.contentType) })")
        XCTAssertTrue(
            collector.exports.allSatisfy { $0.body.range(of: traceBytes) != nil }, "the server without traces sent none"
        )
    }

    /// imgproxy's phase spans: `downloading_source_image` (with imgproxy's source attributes) and `processing_image`
    /// under the request's `image` span, in the client's trace; a failed phase carries its error.
    func testTheDownloadAndProcessingSpansNestUnderTheImageSpan() throws {
        origin.setRoute("/a.png", .ok(png))
        origin.setRoute("/gone.png", .status(404))
        let collector = try OTLPCollector()
        defer { collector.stop() }
        let server = try serve(
            ["--max-result-dimension", "50"],
            environment: [
                "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true",
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.port)",
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_BSP_SCHEDULE_DELAY": "100"
            ])
        let traces = [
            "4bf92f3577b34da6a3ce929d0e0e4701", "4bf92f3577b34da6a3ce929d0e0e4702",
            "4bf92f3577b34da6a3ce929d0e0e4703"
        ]
        let requests = [
            (origin.url("/a.png"), "rs:fit:20:20", 200), (origin.url("/gone.png"), "rs:fit:20:20", 404),
            (origin.url("/a.png"), "rs:fill:100:100:1/ex:1", 422)
        ]
        for (trace, (source, options, status)) in zip(traces, requests) {
            let answer = try server.get(
                ProxyPath.plain(source, options: options),
                headers: ["traceparent": "00-\(trace)-00f067aa0ba902b7-01"])
            XCTAssertEqual(answer.status, status, "\(options) \(source): \(answer.text)")
        }
        var spans: [Span] = []
        let wanted: [(String, Set<String>)] = [
            (traces[0], ["image", "downloading_source_image", "processing_image"]),
            (traces[1], ["image", "downloading_source_image"]),
            (traces[2], ["image", "processing_image"])
        ]
        let arrived = collector.wait(timeout: 15) { exports in
            spans = exports.filter { $0.path == "/v1/traces" }.flatMap { Self.spans(in: $0.body) }
            return wanted.allSatisfy { trace, names in
                Set(spans.filter { $0.trace == trace }.map(\.name)).isSuperset(of: names)
            }
        }
        XCTAssertTrue(arrived, "spans: \(spans)")
        func span(_ name: String, _ trace: String) throws -> Span {
            try XCTUnwrap(spans.first { $0.name == name && $0.trace == trace }, "\(name) in \(trace): \(spans)")
        }
        let download = try span("downloading_source_image", traces[0]),
            processing = try span("processing_image", traces[0])
        for child in [download, processing] {
            XCTAssertEqual(child.parent, try span("image", traces[0]).id, "\(child.name) is a child of the image span")
            XCTAssertNotEqual(child.status, 2, "\(child.name) did not fail")
        }
        XCTAssertEqual(download.attributes["imgproxy.source_image_url"], origin.url("/a.png"))
        XCTAssertEqual(download.attributes["imgproxy.source_image_origin"], "http://127.0.0.1:\(origin.port)")
        XCTAssertEqual(download.attributes["dwserve.source"], "network")
        let failedDownload = try span("downloading_source_image", traces[1])
        XCTAssertEqual(failedDownload.status, 2, "the 404's download span is an error: \(failedDownload)")
        XCTAssertTrue(failedDownload.events.contains("exception"), "\(failedDownload)")
        XCTAssertFalse(
            spans.contains { $0.trace == traces[1] && $0.name == "processing_image" }, "no transform of a 404")
        let failedProcessing = try span("processing_image", traces[2])
        XCTAssertEqual(
            failedProcessing.status, 2, "the refused result's processing span is an error: \(failedProcessing)")
        XCTAssertEqual(try span("downloading_source_image", traces[2]).status, 0, "the download itself succeeded")
    }

    /// imgproxy 3's IMGPROXY_OPEN_TELEMETRY_SERVICE_NAME names the service; its _PROTOCOL http is OTLP/HTTP, grpc a
    /// start-up error (exit 2) naming it.
    func testImgproxy3sServiceNameAndProtocolVariables() throws {
        origin.setRoute("/a.png", .ok(png))
        let collector = try OTLPCollector()
        defer { collector.stop() }
        let server = try serve(
            [],
            environment: [
                "IMGPROXY_OPEN_TELEMETRY_ENDPOINT": "127.0.0.1:\(collector.port)", "OTEL_BSP_SCHEDULE_DELAY": "100",
                "IMGPROXY_OPEN_TELEMETRY_SERVICE_NAME": "dw-imgproxy3-name", "IMGPROXY_OPEN_TELEMETRY_PROTOCOL": "http"
            ])
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/a.png"))).status, 200)
        XCTAssertTrue(
            collector.wait(timeout: 15) { exports in
                exports.contains { $0.path == "/v1/traces" && $0.body.range(of: Data("dw-imgproxy3-name".utf8)) != nil }
            }, "\(collector.exports.map { ($0.path, String(decoding: $0.body, as: UTF8.self)) })")
        let (status, text) = try ServeProcess.startFailure(
            [],
            environment: [
                "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "IMGPROXY_OPEN_TELEMETRY_PROTOCOL": "grpc"
            ])
        XCTAssertEqual(status, 2, text)
        XCTAssertTrue(text.contains("IMGPROXY_OPEN_TELEMETRY_PROTOCOL"), text)
    }

    // MARK: - Helpers

    struct Span: CustomStringConvertible {
        let name: String
        let trace: String
        let id: String
        let parent: String
        var status = 0
        var attributes: [String: String] = [:]
        var events: [String] = []
        /// Start and end, nanoseconds since the epoch.
        var start: UInt64 = 0, end: UInt64 = 0
        var description: String { "\(name) \(trace)/\(id)←\(parent) status \(status) \(attributes) \(events)" }
    }

    /// The spans of an OTLP/JSON export; IDs as hex (OTLP/JSON's), or base64 (protobuf's JSON mapping) made hex.
    static func spans(in body: Data) -> [Span] {
        guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return [] }
        let id = { (value: Any?) -> String in
            guard let text = value as? String, !text.isEmpty else { return "" }
            if text.count % 2 == 0, text.allSatisfy(\.isHexDigit) { return text.lowercased() }
            return Data(base64Encoded: text).map { $0.map { String(format: "%02x", $0) }.joined() } ?? text
        }
        var out: [Span] = []
        for resource in root["resourceSpans"] as? [[String: Any]] ?? [] {
            for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in scope["spans"] as? [[String: Any]] ?? [] {
                    var parsed = Span(
                        name: span["name"] as? String ?? "", trace: id(span["traceId"]),
                        id: id(span["spanId"]), parent: id(span["parentSpanId"]))
                    parsed.status = Self.statusCode((span["status"] as? [String: Any])?["code"])
                    for attribute in span["attributes"] as? [[String: Any]] ?? [] {
                        guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any]
                        else { continue }
                        parsed.attributes[key] = (value["stringValue"] ?? value["intValue"]).map { "\($0)" }
                    }
                    parsed.events = (span["events"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                    parsed.start = UInt64("\(span["startTimeUnixNano"] ?? 0)") ?? 0
                    parsed.end = UInt64("\(span["endTimeUnixNano"] ?? 0)") ?? 0
                    out.append(parsed)
                }
            }
        }
        return out
    }

    /// An OTLP/JSON status code: a number, or the enum's name (protobuf's JSON mapping); 0 when unset.
    static func statusCode(_ value: Any?) -> Int {
        if let number = value as? Int { return number }
        switch value as? String {
        case "STATUS_CODE_OK": return 1
        case "STATUS_CODE_ERROR": return 2
        default: return 0
        }
    }
}
