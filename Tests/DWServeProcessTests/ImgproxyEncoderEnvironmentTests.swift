// imgproxy's encoder variables read by the built `dwfetch serve`: IMGPROXY_JPEG_PROGRESSIVE, IMGPROXY_PNG_INTERLACED,
// IMGPROXY_PNG_QUANTIZE with IMGPROXY_PNG_QUANTIZATION_COLORS, IMGPROXY_WEBP_EFFORT, IMGPROXY_AVIF_SPEED and
// IMGPROXY_JXL_EFFORT, each seen in the bytes served.
import DWTestServer
import Foundation
import XCTest

final class ImgproxyEncoderEnvironmentTests: ServeTestCase {
    let png = SampleImages.png(width: 64, height: 48)

    func testEncoderVariablesChangeTheBytesAsImgproxys() throws {
        origin.setRoute("/a.png", .ok(png))
        let plain = try serve()
        let tuned = try serve(
            [],
            environment: [
                "IMGPROXY_JPEG_PROGRESSIVE": "true", "IMGPROXY_PNG_INTERLACED": "1", "IMGPROXY_PNG_QUANTIZE": "true",
                "IMGPROXY_PNG_QUANTIZATION_COLORS": "16", "IMGPROXY_WEBP_EFFORT": "6", "IMGPROXY_AVIF_SPEED": "2",
                "IMGPROXY_JXL_EFFORT": "8"
            ])
        func body(_ server: ServeProcess, _ ext: String) throws -> Data {
            let answer = try server.get(ProxyPath.plain(origin.url("/a.png"), ext: ext))
            XCTAssertEqual(answer.status, 200, "\(ext): \(answer.text)")
            return answer.body
        }
        let (baseline, progressive) = (try body(plain, "jpg"), try body(tuned, "jpg"))
        XCTAssertTrue(Self.hasMarker(0xC0, baseline) && !Self.hasMarker(0xC2, baseline), "baseline by default")
        XCTAssertTrue(Self.hasMarker(0xC2, progressive), "SOF2: a progressive JPEG")

        let (truecolour, indexed) = (try body(plain, "png"), try body(tuned, "png"))
        XCTAssertEqual(Self.ihdr(truecolour), [8, 2, 0], "8-bit RGB, not interlaced by default")
        XCTAssertEqual(Self.ihdr(indexed), [4, 3, 1], "16 colours: a 4-bit palette, Adam7-interlaced")
        let palette = try XCTUnwrap(Self.chunk("PLTE", indexed))
        XCTAssertLessThanOrEqual(palette.count / 3, 16, "at most 16 colours")

        for ext in ["webp", "avif", "jxl"] {
            XCTAssertNotEqual(try body(plain, ext), try body(tuned, ext), "\(ext): another effort, other bytes")
        }
    }

    /// IMGPROXY_QUALITY is the quality of the formats without their own (JPEG here), under IMGPROXY_FORMAT_QUALITY and
    /// the per-format defaults (WebP's 79 stays), and under the URL's `q:`.
    func testQualityIsTheDefaultOfFormatsWithoutTheirOwn() throws {
        origin.setRoute("/a.png", .ok(png))
        let plain = try serve()
        let low = try serve([], environment: ["IMGPROXY_QUALITY": "20"])
        func body(_ server: ServeProcess, _ options: String, _ ext: String) throws -> Data {
            let answer = try server.get(ProxyPath.plain(origin.url("/a.png"), options: options, ext: ext))
            XCTAssertEqual(answer.status, 200, "\(options) \(ext): \(answer.text)")
            return answer.body
        }
        XCTAssertLessThan(try body(low, "", "jpg").count, try body(plain, "", "jpg").count, "JPEG at 20, not 80")
        XCTAssertEqual(try body(low, "q:20", "jpg"), try body(low, "", "jpg"), "the variable is q:20 for JPEG")
        XCTAssertEqual(try body(low, "q:80", "jpg"), try body(plain, "", "jpg"), "the URL's q: wins")
        XCTAssertEqual(try body(low, "", "webp"), try body(plain, "", "webp"), "WebP keeps its own 79")
    }

    func testAnEncoderValueOutOfImgproxysRangeStopsTheStart() throws {
        for (name, value) in [
            ("IMGPROXY_WEBP_EFFORT", "7"), ("IMGPROXY_AVIF_SPEED", "10"),
            ("IMGPROXY_PNG_QUANTIZATION_COLORS", "1"), ("IMGPROXY_JXL_EFFORT", "0")
        ] {
            let (status, text) = try ServeProcess.startFailure([], environment: [name: value])
            XCTAssertEqual(status, 2, "\(name)=\(value): \(text)")
            XCTAssertTrue(text.contains(name), text)
        }
    }

    // MARK: - Helpers

    /// Whether a JPEG has the marker FF `code` (SOF0 C0 baseline, SOF2 C2 progressive) among its segments.
    static func hasMarker(_ code: UInt8, _ jpeg: Data) -> Bool {
        let bytes = Array(jpeg)
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if marker == code { return true }
            if marker == 0xDA { return false }  // start of scan: the frame header came before
            index += 2 + (Int(bytes[index + 2]) << 8 | Int(bytes[index + 3]))
        }
        return false
    }

    /// A PNG's bit depth, colour type and interlace method.
    static func ihdr(_ png: Data) -> [UInt8] {
        let bytes = Array(png)
        return bytes.count > 28 ? [bytes[24], bytes[25], bytes[28]] : []
    }

    /// The payload of a PNG's first chunk of `type`.
    static func chunk(_ type: String, _ png: Data) -> Data? {
        let bytes = Array(png)
        var index = 8
        while index + 8 <= bytes.count {
            let length = bytes[index..<(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self) == type {
                return Data(bytes[(index + 8)..<min(bytes.count, index + 8 + length)])
            }
            index += 12 + length
        }
        return nil
    }
}
