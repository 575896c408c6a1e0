// `serve` with a format only a registered codec knows (QOI, DWTestCodecs): the server in process (HummingbirdTesting's
// router framework), the origin a real DWTestServer, the codec registered as an app embedding the server would.
import DWTestCodecs
import DWTestServer
import DWWebImage
import DWWebImageProcessing
@testable import DWWebImageServer
import Foundation
import Hummingbird
import HummingbirdTesting
import XCTest

final class RegisteredCodecRoutesTests: XCTestCase {
    var origin: LoopbackHTTPServer!
    var cacheRoot: URL!

    override func setUpWithError() throws {
        QOICodec.register()
        origin = try LoopbackHTTPServer()
        cacheRoot = FileManager.default.temporaryDirectory.appendingPathComponent("dwqoiroutes-\(UUID().uuidString)")
    }

    override func tearDown() {
        origin.shutdown()
        try? FileManager.default.removeItem(at: cacheRoot)
    }

    func app(sourceFormats: Set<DWImageFormat>? = nil) throws -> some ApplicationProtocol {
        var configuration = DWServeConfiguration()
        configuration.sourceFormats = sourceFormats
        configuration.cacheDirectory = cacheRoot.appendingPathComponent(UUID().uuidString)
        configuration.allowedNetworks = [try XCTUnwrap(DWCIDR("127.0.0.1/32"))]
        configuration.tunesMalloc = false
        let router = Router()
        DWImageServer(configuration: configuration).mount(on: router, at: "", refusingOtherMethods: true)
        return Application(router: router)
    }

    func plain(_ path: String, options: String, extension ext: String = "") -> String {
        let source = origin.url(path).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "/insecure/" + options + "/plain/" + source + ext
    }

    /// 30×20 RGBA with an alpha ramp, as QOI.
    static let qoi: Data = {
        var pixels = [UInt8]()
        for y in 0..<20 { for x in 0..<30 { pixels += [UInt8(x * 8), UInt8(y * 12), 90, UInt8(255 - x * 4)] } }
        return try! QOICodec().encode(DWBitmap(width: 30, height: 20, pixels: Data(pixels))!, quality: nil)
    }()

    func testServeResizesAQOIIntoQOIAndIntoAPreferredFormat() async throws {
        origin.setRoute("/a.qoi", .ok(Self.qoi))
        origin.setRoute("/cut.qoi", .ok(Self.qoi.prefix(Self.qoi.count - 40)))
        let asQOI = plain("/a.qoi", options: "rs:fit:15:15", extension: "@qoi")
        let preferred = plain("/a.qoi", options: "rs:fit:15:15")
        let cut = plain("/cut.qoi", options: "rs:fit:15:15")
        try await app().test(.router) { client in
            try await client.execute(uri: asQOI, method: .get) { response in
                XCTAssertEqual(response.status, .ok, String(buffer: response.body))
                XCTAssertEqual(response.headers[.contentType], "image/qoi")
                let out = try DWImage(data: Data(response.body.readableBytesView))
                XCTAssertEqual(out.format, QOICodec.format)
                XCTAssertEqual([out.pixelWidth, out.pixelHeight], [15, 10])
            }
            try await client.execute(uri: preferred, method: .get) { response in
                XCTAssertEqual(response.status, .ok, String(buffer: response.body))
                XCTAssertEqual(response.headers[.contentType], "image/png", "imgproxy's preferred formats; alpha: PNG")
                let out = try DWImage(data: Data(response.body.readableBytesView))
                XCTAssertEqual([out.pixelWidth, out.pixelHeight], [15, 10])
            }
            try await client.execute(uri: cut, method: .get) { response in
                XCTAssertEqual(response.status.code, 422, String(buffer: response.body))
            }
        }
    }
}

extension RegisteredCodecRoutesTests {
    /// PNM is read by the library and dwfetch, but serve takes it only when its source formats name it: libvips
    /// counts its loader as untrusted.
    func testPNMIsServedOnlyWhenTheSourceFormatsNameIt() async throws {
        var ppm = Array("P6 4 2 255\n".utf8)
        for _ in 0..<8 { ppm += [10, 200, 30] }
        origin.setRoute("/a.ppm", .ok(Data(ppm)))
        let uri = plain("/a.ppm", options: "rs:fit:2:2")
        try await app().test(.router) { client in
            try await client.execute(uri: uri, method: .get) { response in
                XCTAssertEqual(response.status.code, 422, String(buffer: response.body))
            }
        }
        try await app(sourceFormats: [.pnm, .png]).test(.router) { client in
            try await client.execute(uri: uri, method: .get) { response in
                XCTAssertEqual(response.status, .ok, String(buffer: response.body))
                let out = try DWImage(data: Data(response.body.readableBytesView))
                XCTAssertEqual([out.pixelWidth, out.pixelHeight], [2, 1])
            }
        }
    }
}
