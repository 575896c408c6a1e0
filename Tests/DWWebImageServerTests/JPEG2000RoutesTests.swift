// `serve` and JPEG 2000: read only when the source formats name it (imgproxy does not read it; libvips counts
// OpenJPEG's loader as untrusted), and never written (a `.jp2` result is a 4xx, as any format the engine cannot save).
import DWTestSupport
import DWWebImage
import Foundation
import HummingbirdTesting
import XCTest

extension RegisteredCodecRoutesTests {
    /// A 6×4 JPEG 2000 codestream made by Pillow (OpenJPEG), lossless.
    static let j2k: Data = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString).j2k").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try! Python.system.script(
            "import sys\nfrom PIL import Image\nImage.new('RGB', (6, 4), (10, 200, 30)).save(sys.argv[1])",
            arguments: [path])
        return try! Data(contentsOf: URL(fileURLWithPath: path))
    }()

    func testJPEG2000IsServedOnlyWhenTheSourceFormatsNameItAndNeverWritten() async throws {
        origin.setRoute("/a.j2k", .ok(Self.j2k))
        let uri = plain("/a.j2k", options: "rs:fit:3:3")
        let asJP2 = plain("/a.j2k", options: "rs:fit:3:3", extension: "@jp2")
        try await app().test(.router) { client in
            try await client.execute(uri: uri, method: .get) { response in
                XCTAssertEqual(response.status.code, 422, String(buffer: response.body))
            }
        }
        try await app(sourceFormats: [.jp2, .png]).test(.router) { client in
            try await client.execute(uri: uri, method: .get) { response in
                XCTAssertEqual(response.status, .ok, String(buffer: response.body))
                let out = try DWImage(data: Data(response.body.readableBytesView))
                XCTAssertEqual(response.headers[.contentType], out.format.mimeType)
                XCTAssertTrue(out.format.isWritable, "a format serve writes (imgproxy's fallback), not \(out.format)")
                XCTAssertEqual([out.pixelWidth, out.pixelHeight], [3, 2])
            }
            try await client.execute(uri: asJP2, method: .get) {
                XCTAssertTrue((400..<500).contains($0.status.code), "\($0.status): \(String(buffer: $0.body))")
            }
        }
    }
}
