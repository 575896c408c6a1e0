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
        let server = try serve([], environment: [
            "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.port)",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_SERVICE_NAME": "dw-trace-test",
            "OTEL_BSP_SCHEDULE_DELAY": "100",
        ])
        let (trace, parent) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7")
        let answer = try server.get(ProxyPath.plain(origin.url("/a.png"), options: "rs:fit:20:20"),
                                    headers: ["traceparent": "00-\(trace)-\(parent)-01"])
        XCTAssertEqual(answer.status, 200, answer.text)
        var spans: [Span] = []
        let arrived = collector.wait(timeout: 15) { exports in
            spans = exports.filter { $0.path == "/v1/traces" }.flatMap { Self.spans(in: $0.body) }
            return Set(spans.filter { $0.trace == trace }.map(\.name)).isSuperset(of: ["image", "streaming"])
        }
        XCTAssertTrue(arrived, "spans: \(spans), exports: \(collector.exports.map(\.path))")
        let request = try XCTUnwrap(spans.first { $0.trace == trace && $0.parent == parent }, "\(spans)")
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
        let server = try serve([], environment: [
            "IMGPROXY_OPEN_TELEMETRY_ENDPOINT": "127.0.0.1:\(collector.port)", "OTEL_BSP_SCHEDULE_DELAY": "100",
        ])
        let trace = "0af7651916cd43dd8448eb211c80319c"
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/a.png")),
                                      headers: ["traceparent": "00-\(trace)-b7ad6b7169203331-01"]).status, 200)
        let traceBytes = Data((0..<16).map { UInt8(trace.dropFirst($0 * 2).prefix(2), radix: 16)! })
        XCTAssertTrue(collector.wait(timeout: 15) { exports in
            exports.contains { $0.path == "/v1/traces" && $0.contentType.contains("protobuf") && $0.body.range(of: traceBytes) != nil }
        }, "\(collector.exports.map { ($0.path, $0.contentType) })")
        XCTAssertTrue(collector.exports.allSatisfy { $0.body.range(of: traceBytes) != nil }, "the server without traces sent none")
    }

    // MARK: - Helpers

    struct Span: CustomStringConvertible {
        let name: String
        let trace: String
        let id: String
        let parent: String
        var description: String { "\(name) \(trace)/\(id)←\(parent)" }
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
                    out.append(Span(name: span["name"] as? String ?? "", trace: id(span["traceId"]),
                                    id: id(span["spanId"]), parent: id(span["parentSpanId"])))
                }
            }
        }
        return out
    }
}
