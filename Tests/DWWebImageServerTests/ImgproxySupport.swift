// Helpers: a URL's options through the server's parser and the one builder onto a real image, read back as pixels.
import DWTestServer
import DWWebImage
import DWWebImageProcessing
@testable import DWWebImageServer
import XCTest

enum Imgproxy {
    static let source = "http://127.0.0.1/image.png"

    /// The options of `/insecure/{options}/plain/{source}`.
    static func parse(_ options: String, presets: DWPresets = DWPresets(), now: Int64 = 1_700_000_000)
        throws(DWProxyURL.ParseError) -> DWImgproxyOptions
    {
        try DWProxyURL(target: "/insecure/\(options)/plain/\(source)", presets: presets, now: now).options
    }

    /// `data` processed as the server would for `options` (no --format-quality), and its first frame's pixels.
    static func run(
        _ options: String, on data: Data, watermark: Data? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> (DWImage, DWBitmap) {
        let transform = try parse(options).transform
        let chain = transform.processors(watermark: try watermark.map { try DWImage(data: $0) })
        let image = try DWImageProcessors.apply(chain, to: try DWImage(data: data))
        return (image, try image.bitmap())
    }

    /// The parse error's text and status, failing when it parses.
    static func refusal(
        _ options: String, presets: DWPresets = DWPresets(), file: StaticString = #filePath,
        line: UInt = #line
    ) -> (String, Int) {
        do {
            _ = try parse(options, presets: presets)
            XCTFail("\(options) parsed", file: file, line: line)
            return ("", 0)
        } catch {
            return (error.description, error.status)
        }
    }
}

extension DWBitmap {
    /// (r, g, b, a) at (x, y).
    func rgba(_ x: Int, _ y: Int) -> (Int, Int, Int, Int) {
        let i = y * bytesPerRow + x * 4
        return (Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2]), Int(pixels[i + 3]))
    }

    /// Whether (x, y) is within `tolerance` of (r, g, b).
    func isColour(_ x: Int, _ y: Int, _ r: Int, _ g: Int, _ b: Int, tolerance: Int = 8) -> Bool {
        let p = rgba(x, y)
        return abs(p.0 - r) <= tolerance && abs(p.1 - g) <= tolerance && abs(p.2 - b) <= tolerance
    }
}
