// A codec registered once works everywhere, through a real process: `dwfetch-qoi` (dwfetch with the QOI test codec
// registered and every engine in one process) fetches, verifies, resizes and serves a .qoi from a real origin, and
// `serve`'s answer is fetched back by the same binary. The shipped dwfetch, which has no QOI codec, refuses it.
import DWTestCodecs
import DWTestServer
import DWTestSupport
import DWWebImage
import Foundation
import XCTest

final class QOIBinaryTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var root: URL!

    /// 30×20 RGBA with an alpha ramp, as QOI.
    private static let qoi: Data = {
        var pixels = [UInt8]()
        for y in 0..<20 { for x in 0..<30 { pixels += [UInt8(x * 8), UInt8(y * 12), 90, UInt8(255 - x * 4)] } }
        return try! QOICodec().encode(DWBitmap(width: 30, height: 20, pixels: Data(pixels))!, quality: nil)
    }()

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dwfetch-qoi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        server.setRoute("/a.qoi", .ok(Self.qoi, contentType: "image/qoi"))
        server.setRoute("/cut.qoi", .ok(Self.qoi.prefix(Self.qoi.count - 40), contentType: "image/qoi"))
    }

    override func tearDown() {
        server.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    private func qoiFetch(_ args: [String], executable: String = "dwfetch-qoi") throws -> FetchRun {
        try DWFetchProcess.run(
            ["--cache-dir", root.appendingPathComponent("cache-\(executable)").path, "--retries", "0"] + args,
            executable: executable)
    }

    func testFetchVerifyAndResizeAQOIThroughTheBinary() throws {
        let fetched = try qoiFetch(["--json", server.url("/a.qoi")])
        XCTAssertEqual(fetched.status, 0, fetched.stderr)
        let line = try XCTUnwrap(fetched.json().first)
        XCTAssertEqual(line["format"] as? String, "qoi", "sniffed by the registered decoder")
        XCTAssertEqual([line["width"] as? Int, line["height"] as? Int], [30, 20])

        let verified = try qoiFetch(["--json", "--no-cache", "--verify", server.url("/a.qoi")])
        XCTAssertEqual(verified.status, 0, verified.stderr)
        let cut = try qoiFetch(["--json", "--no-cache", "--verify", server.url("/cut.qoi")])
        XCTAssertEqual(cut.status, 1, cut.stderr)
        let error = try XCTUnwrap(try XCTUnwrap(cut.json().first)["error"] as? [String: Any])
        XCTAssertEqual(error["code"] as? Int, 10000, "a cut QOI fails its decode")

        let out = root.appendingPathComponent("out")
        let resized = try qoiFetch([
            "--json", "-o", out.path, "--resize", "15x", "--format", "qoi", server.url("/a.qoi")
        ])
        XCTAssertEqual(resized.status, 0, resized.stderr)
        let small = try XCTUnwrap(resized.json().first)
        XCTAssertEqual(small["format"] as? String, "qoi", "written by the registered encoder")
        XCTAssertEqual([small["width"] as? Int, small["height"] as? Int], [15, 10])
        XCTAssertEqual(small["source_format"] as? String, "qoi")
        let written = try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(small["path"] as? String)))
        XCTAssertEqual(Array(written.prefix(4)), Array("qoif".utf8))
        QOICodec.register()  // this test process reads the file back with the same codec
        let reread = try DWImage(data: written)
        XCTAssertEqual([reread.pixelWidth, reread.pixelHeight], [15, 10])

        // The shipped dwfetch has no QOI codec: the same bytes are not an image to it.
        let shipped = try qoiFetch(["--json", "--no-cache", server.url("/a.qoi")], executable: "dwfetch")
        XCTAssertEqual(shipped.status, 1, shipped.stderr)
        XCTAssertEqual((try XCTUnwrap(shipped.json().first)["error"] as? [String: Any])?["code"] as? Int, 10000)
    }

    func testServeResizesAQOIThroughTheBinary() throws {
        let serving = try DWFetchProcess.start(
            [
                "serve", "--port", "0", "--cache-dir", root.appendingPathComponent("serve-cache").path,
                "--allow-network", "127.0.0.1/32"
            ],
            executable: "dwfetch-qoi")
        defer {
            serving.signal(SIGTERM)
            _ = serving.wait(timeout: 30)
        }
        var port: Int?
        _ = eventually(timeout: 30, interval: 0.02) {
            let text = (try? String(contentsOf: serving.outURL, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"listening on http://[^:]+:(\d+)"#, options: .regularExpression) {
                port = Int(text[range].split(separator: ":").last!)
            }
            return port != nil || !serving.process.isRunning
        }
        let errors = (try? String(contentsOf: serving.errURL, encoding: .utf8)) ?? ""
        let listening = try XCTUnwrap(port, "dwfetch-qoi serve did not start: \(errors)")
        let source = server.url("/a.qoi").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let base = "http://127.0.0.1:\(listening)/insecure/rs:fit:15:15/plain/" + source
        let asQOI = try qoiFetch(["--json", "--no-cache", base + "@qoi"])
        XCTAssertEqual(asQOI.status, 0, asQOI.stderr)
        let line = try XCTUnwrap(asQOI.json().first)
        XCTAssertEqual(line["format"] as? String, "qoi", "served as QOI by the registered encoder")
        XCTAssertEqual([line["width"] as? Int, line["height"] as? Int], [15, 10])
        let preferred = try XCTUnwrap(try qoiFetch(["--json", "--no-cache", base]).json().first)
        XCTAssertEqual(preferred["format"] as? String, "png", "imgproxy's preferred formats; alpha: PNG")
        XCTAssertEqual([preferred["width"] as? Int, preferred["height"] as? Int], [15, 10])
    }
}
