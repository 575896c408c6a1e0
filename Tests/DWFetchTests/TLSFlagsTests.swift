// dwfetch's TLS and proxy flags, spelled as curl spells them, against nginx (HTTPS, HTTP/2) with a CA made by the
// test and tinyproxy; and the proxy environment variables libcurl reads.
import DWTestPeers
import DWTestServer
import Foundation
import XCTest

final class TLSFlagsTests: XCTestCase {
    private var ca: TestCA!
    private var nginx: NginxTLS!
    private var root: URL!
    private let png = SampleImages.png(width: 24, height: 18, seed: 9)

    override func setUpWithError() throws {
        do {
            ca = try TestCA()
            nginx = try NginxTLS(ca: ca)
        } catch let missing as PeerUnavailable {
            throw MissingPrerequisite(missing.description)
        }
        try nginx.put("cat.png", png)
        try nginx.put("private/cat.png", png)
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dwfetch-tls-\(UUID().uuidString)")
    }

    override func tearDown() {
        nginx?.stop()
        if let root { try? FileManager.default.removeItem(at: root) }
    }

    private func fetch(_ args: [String], environment: [String: String] = [:]) throws -> (FetchRun, [String: Any]) {
        let run = try DWFetchProcess.run(["--no-cache", "--retries", "0", "--json"] + args, environment: environment)
        return (run, try XCTUnwrap(run.json().first, run.stdout + run.stderr))
    }

    private func curlCode(_ line: [String: Any]) -> Int? { (line["error"] as? [String: Any])?["curl_code"] as? Int }

    func testTrustFlags() throws {
        let url = nginx.baseURL + "/cat.png"
        let (plain, line) = try fetch([url])
        XCTAssertEqual(plain.status, 1)
        XCTAssertEqual(curlCode(line), 60, "an internal CA is not trusted by default")
        XCTAssertEqual(try fetch(["--cacert", ca.caFile, url]).1["ok"] as? Bool, true)
        XCTAssertEqual(try fetch(["--capath", ca.caDirectory, url]).1["ok"] as? Bool, true)
        XCTAssertEqual(try fetch(["-k", url]).1["ok"] as? Bool, true)
        XCTAssertEqual(try fetch(["--insecure", url]).1["ok"] as? Bool, true)
        XCTAssertEqual(try fetch(["--cacert", ca.caFile, "--pinnedpubkey", ca.serverPin, url]).1["ok"] as? Bool, true)
        let wrong = "sha256//" + Data(repeating: 1, count: 32).base64EncodedString()
        XCTAssertEqual(curlCode(try fetch(["--cacert", ca.caFile, "--pinnedpubkey", wrong, url]).1), 90)

        let privateURL = nginx.baseURL + "/private/cat.png"
        let (_, refused) = try fetch(["--cacert", ca.caFile, privateURL])
        XCTAssertEqual((refused["error"] as? [String: Any])?["http_status"] as? Int, 403)
        let (ok, line2) = try fetch([
            "--cacert", ca.caFile, "--cert", ca.clientCertificate, "--key", ca.clientKey, privateURL
        ])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(line2["width"] as? Int, 24)
    }

    func testSixJobsToOneHostShareOneHTTP2Connection() throws {
        var urls: [String] = []
        for i in 0..<12 {
            try nginx.put("n\(i).png", SampleImages.png(width: 10 + i, height: 10, seed: UInt8(i)))
            urls.append(nginx.baseURL + "/n\(i).png")
        }
        let run = try DWFetchProcess.run(["--no-cache", "--json", "-j", "6", "--cacert", ca.caFile] + urls)
        XCTAssertEqual(run.status, 0, run.stderr)
        nginx.stop()
        let lines = nginx.accessLog.split(separator: "\n").filter { $0.contains("/n") }
        XCTAssertEqual(lines.count, 12)
        XCTAssertTrue(lines.allSatisfy { $0.contains(" HTTP/2.0 ") }, nginx.accessLog)
        XCTAssertEqual(Set(lines.map { $0.split(separator: " ")[0] }).count, 1, "one connection: \(nginx.accessLog)")
    }

    func testProxyFlagsAndEnvironment() throws {
        let proxy: Tinyproxy
        do { proxy = try Tinyproxy() } catch let missing as PeerUnavailable {
            throw MissingPrerequisite(missing.description)
        }
        defer { proxy.stop() }
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        server.setRoute("/a.png", .ok(png, contentType: "image/png"))
        server.setRoute("/b.png", .ok(png, contentType: "image/png"))
        server.setRoute("/c.png", .ok(png, contentType: "image/png"))
        server.setRoute("/d.png", .ok(png, contentType: "image/png"))
        let tls = nginx.baseURL + "/cat.png"
        // Flags: -x for http and https (CONNECT); --noproxy for a host that should be reached directly.
        XCTAssertEqual(try fetch(["-x", proxy.url, server.url("/a.png")]).1["ok"] as? Bool, true)
        XCTAssertEqual(try fetch(["--proxy", proxy.url, "--cacert", ca.caFile, tls]).1["ok"] as? Bool, true)
        XCTAssertEqual(
            try fetch(["-x", proxy.url, "--noproxy", "127.0.0.1", server.url("/b.png")]).1["ok"] as? Bool, true)
        // The environment, as curl reads it: http_proxy, https_proxy, no_proxy.
        let env = ["http_proxy": proxy.url, "https_proxy": proxy.url]
        XCTAssertEqual(try fetch([server.url("/c.png")], environment: env).1["ok"] as? Bool, true)
        XCTAssertEqual(try fetch(["--cacert", ca.caFile, tls], environment: env).1["ok"] as? Bool, true)
        var bypass = env
        bypass["no_proxy"] = "127.0.0.1"
        XCTAssertEqual(try fetch([server.url("/c.png")], environment: bypass).1["ok"] as? Bool, true)
        // An explicit -x is never bypassed because of the environment's no_proxy.
        XCTAssertEqual(
            try fetch(["-x", proxy.url, server.url("/d.png")], environment: ["no_proxy": "127.0.0.1"]).1["ok"]
                as? Bool, true)
        proxy.stop()
        let requests = proxy.requests
        XCTAssertEqual(requests.filter { $0.hasPrefix("GET \(server.url("/a.png")) ") }.count, 1, "\(requests)")
        XCTAssertEqual(
            requests.filter { $0.hasPrefix("GET \(server.url("/b.png")) ") }.count, 0, "--noproxy: \(requests)")
        XCTAssertEqual(
            requests.filter { $0.hasPrefix("GET \(server.url("/c.png")) ") }.count, 1,
            "http_proxy, then no_proxy: \(requests)")
        XCTAssertEqual(
            requests.filter { $0.hasPrefix("GET \(server.url("/d.png")) ") }.count, 1, "-x over no_proxy: \(requests)")
        XCTAssertEqual(requests.filter { $0.hasPrefix("CONNECT 127.0.0.1:\(nginx.port) ") }.count, 2, "\(requests)")
        XCTAssertEqual(server.requestCount(path: "/c.png"), 2)
    }
}
