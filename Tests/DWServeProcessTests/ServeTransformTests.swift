// What each URL option does to the output, read back with vipsheader (libvips-tools), and how variants are cached.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ServeTransformTests: ServeTestCase {
    /// 64 × 48, RGB.
    let png = SampleImages.png(width: 64, height: 48)

    func testResizeOptions() throws {
        origin.setRoute("/p.png", .ok(png))
        let server = try serve()
        let source = origin.url("/p.png")
        let cases: [(String, Int, Int)] = [
            ("rs:fit:32:32", 32, 24), ("resize:fit:32:32", 32, 24), ("w:16", 16, 12), ("width:16", 16, 12),
            ("h:12", 16, 12), ("height:12", 16, 12), ("rs:fill:20:20", 20, 20), ("rs:force:10:30", 10, 30),
            ("rs:fit:128:128", 64, 48), ("rs:fit:128:128/el:1", 128, 96), ("rs:fit:128:128:1", 128, 96),
            ("enlarge:1/w:128", 128, 96), ("s:32:32", 32, 24), ("rt:fill/w:20/h:20", 20, 20),
            ("rs:fill:20:20/g:ce", 20, 20)
        ]
        for (options, width, height) in cases {
            let response = try server.get(ProxyPath.plain(source, options: options))
            XCTAssertEqual(response.status, 200, "\(options): \(response.text)")
            let facts = try vipsheader(response.body)
            XCTAssertEqual(facts.width, width, options)
            XCTAssertEqual(facts.height, height, options)
            XCTAssertEqual(response.header("Content-Type"), "image/png", "the source's format is kept: \(options)")
        }
    }

    func testFormatOptionsAndExtensions() throws {
        origin.setRoute("/p.png", .ok(png))
        let server = try serve()
        let source = origin.url("/p.png")
        let cases: [(String, String, String)] = [
            (ProxyPath.plain(source, options: "f:webp"), "image/webp", "webpload"),
            (ProxyPath.plain(source, options: "format:jpeg"), "image/jpeg", "jpegload"),
            (ProxyPath.plain(source, options: "ext:gif"), "image/gif", "gifload"),
            (ProxyPath.plain(source, ext: "jpg"), "image/jpeg", "jpegload"),
            (ProxyPath.encoded(source, ext: "webp"), "image/webp", "webpload"),
            (ProxyPath.encoded(source, options: "w:32", ext: "png"), "image/png", "pngload")
        ]
        for (path, type, loader) in cases {
            let response = try server.get(path)
            XCTAssertEqual(response.status, 200, "\(path): \(response.text)")
            XCTAssertEqual(response.header("Content-Type"), type, path)
            XCTAssertEqual(try vipsheader(response.body).loader, loader, path)
        }
    }

    func testQualityAndBlurChangeTheBytes() throws {
        origin.setRoute("/p.png", .ok(SampleImages.png(width: 256, height: 192, seed: 7)))
        let server = try serve()
        let source = origin.url("/p.png")
        let low = try server.get(ProxyPath.plain(source, options: "q:10", ext: "jpg"))
        let high = try server.get(ProxyPath.plain(source, options: "quality:95", ext: "jpg"))
        XCTAssertEqual(low.status, 200)
        XCTAssertLessThan(low.body.count, high.body.count, "q:10 is smaller than q:95")
        let sharp = try server.get(ProxyPath.plain(source, ext: "jpg"))
        let blurred = try server.get(ProxyPath.plain(source, options: "bl:4", ext: "jpg"))
        XCTAssertEqual(blurred.status, 200)
        XCTAssertLessThan(blurred.body.count, sharp.body.count, "a blurred image compresses better")
        XCTAssertNotEqual(
            try server.get(ProxyPath.plain(source, options: "blur:4", ext: "jpg")).header("ETag"),
            sharp.header("ETag"))
    }

    func testAutoFormatFollowsAccept() throws {
        origin.setRoute("/p.png", .ok(png))
        let server = try serve(["--auto-format"])
        let path = ProxyPath.plain(origin.url("/p.png"), options: "w:32")
        let avif = try server.get(path, headers: ["Accept": "image/avif,image/webp,image/*;q=0.8"])
        XCTAssertEqual(avif.header("Content-Type"), "image/avif", "imgproxy prefers AVIF for a still result")
        let webp = try server.get(path, headers: ["Accept": "image/webp,image/*;q=0.8"])
        XCTAssertEqual(webp.header("Content-Type"), "image/webp")
        XCTAssertEqual(webp.header("Vary"), "Accept")
        XCTAssertEqual(try vipsheader(webp.body).loader, "webpload")
        let plain = try server.get(path)
        XCTAssertEqual(plain.header("Content-Type"), "image/png", "no Accept: the source's format")
        XCTAssertEqual(plain.header("Vary"), "Accept")
        let refused = try server.get(path, headers: ["Accept": "image/webp;q=0, image/png"])
        XCTAssertEqual(refused.header("Content-Type"), "image/png", "q=0 refuses webp")
        XCTAssertNotEqual(webp.header("ETag"), plain.header("ETag"))
        let named = try server.get(
            ProxyPath.plain(origin.url("/p.png"), options: "w:32", ext: "png"),
            headers: ["Accept": "image/webp"])
        XCTAssertEqual(named.header("Content-Type"), "image/png")
        XCTAssertNil(named.header("Vary"))
        XCTAssertEqual(origin.requestCount(path: "/p.png"), 1)
    }

    func testASecondSizeOfACachedSourceNeedsNoOriginRequest() throws {
        origin.setRoute("/p.png", .ok(png))
        let server = try serve()
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/p.png"), options: "w:32")).status, 200)
        XCTAssertEqual(origin.requestCount(path: "/p.png"), 1)
        let second = try server.get(ProxyPath.plain(origin.url("/p.png"), options: "w:20"))
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(try vipsheader(second.body).width, 20)
        XCTAssertEqual(origin.requestCount(path: "/p.png"), 1, "0 origin requests for the second size")
    }

    func testConcurrentIdenticalColdTransformsMakeOneFetchAndOneTransform() throws {
        origin.setRoute("/c.png", .delayed(0.3, .ok(png)))
        let server = try serve()
        let path = ProxyPath.plain(origin.url("/c.png"), options: "rs:fill:24:24")
        let bodies = Recorder<Data>()
        DispatchQueue.concurrentPerform(iterations: 50) { _ in
            if let response = try? server.get(path), response.status == 200 { bodies.append(response.body) }
        }
        XCTAssertEqual(bodies.values.count, 50)
        XCTAssertEqual(Set(bodies.values).count, 1, "every client got the same bytes")
        XCTAssertEqual(origin.requestCount(path: "/c.png"), 1)
        XCTAssertEqual(try server.metric("dwserve_transforms_total"), 1, "one transform for 50 requests")
    }

    /// Width, height and loader of an encoded image, as libvips' own vipsheader reads them.
    func vipsheader(_ data: Data) throws -> (width: Int, height: Int, loader: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dwserve-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        func field(_ name: String) throws -> String {  // libvips-tools (scripts/setup.sh installs it)
            try Subprocess.output(["vipsheader", "-f", name, file.path]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return (Int(try field("width")) ?? -1, Int(try field("height")) ?? -1, try field("vips-loader"))
    }
}
