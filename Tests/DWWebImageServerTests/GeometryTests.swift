// Output sizes as imgproxy documents and computes them (its prepare.go), on real libvips.
import DWTestServer
import DWWebImage
import DWWebImageProcessing
import XCTest

final class GeometryTests: XCTestCase {
    /// 64 × 48 RGB.
    let png = SampleImages.png(width: 64, height: 48)

    func testSizes() throws {
        let cases: [(String, Int, Int)] = [
            ("rs:fit:32:32", 32, 24), ("rs:fill:20:20", 20, 20), ("rs:force:10:30", 10, 30),
            ("rs:force:32:0", 32, 48), ("rs:force:0:24", 64, 24),  // force: a side of 0 keeps the source's
            ("rs:auto:20:20", 20, 20), ("rs:auto:20:40", 20, 15),  // auto: fill when both lean alike, else fit
            ("rs:fill-down:100:50", 64, 32), ("rs:fill-down:32:16", 32, 16),
            ("rs:fit:128:128", 64, 48), ("rs:fit:128:128:1", 128, 96), ("w:128/el:1", 128, 96),
            ("mw:100", 100, 75), ("mh:96", 128, 96),  // min sizes may enlarge
            ("w:32/mw:100", 32, 75), ("h:12/mh:24", 32, 12),  // imgproxy's docs: then cropped to the width/height
            ("z:0.5", 32, 24), ("w:32/z:0.5", 16, 12), ("z:0.5:0.25", 32, 12),
            ("w:16/dpr:2", 32, 24), ("w:64/dpr:2", 64, 48),  // no enlarge: the DPR stops at the source's size
            ("c:32:24", 32, 24), ("c:0.5:0.5", 32, 24), ("c:32:24/w:16", 16, 12), ("c:100:10", 64, 10),
            ("s:32:32:0:1", 32, 32), ("rs:fit:200:100/ex:1", 200, 100), ("rs:fit:100:100/exar:1", 64, 64),
            ("rs:fit:32:32/pd:4", 40, 32), ("pd:1:2:3:4", 70, 52), ("w:16/pd:2/dpr:2", 40, 32),
            ("rot:90", 48, 64), ("rot:180/w:32", 32, 24), ("rot:270/w:24", 24, 32),
            ("g:sm/rs:fill:20:30", 20, 30), ("c:20:20:sm", 20, 20), ("rs:fit:0:0", 64, 48)
        ]
        for (options, width, height) in cases {
            let (image, _) = try Imgproxy.run(options, on: png)
            XCTAssertEqual([image.pixelWidth, image.pixelHeight], [width, height], options)
            XCTAssertEqual(image.format, .png, options)
        }
    }

    func testFormatsAndQualities() throws {
        for (options, format) in [
            ("f:webp", DWImageFormat.webp), ("f:jpg", .jpeg), ("ext:avif", .avif), ("f:gif", .gif)
        ] {
            XCTAssertEqual(try Imgproxy.run(options, on: png).0.format, format, options)
        }
        let photo = SampleImages.png(width: 256, height: 192, seed: 9)
        let low = try Imgproxy.run("f:webp/q:10", on: photo).0.data.count
        let high = try Imgproxy.run("f:webp/fq:webp:95", on: photo).0.data.count
        XCTAssertLessThan(low, high)
        XCTAssertEqual(try Imgproxy.run("f:webp/fq:webp:95/q:10", on: photo).0.data.count, low, "q wins over fq")
        let fitted = try Imgproxy.run("f:jpg/q:100/mb:6000", on: photo).0
        XCTAssertLessThanOrEqual(fitted.data.count, 6000, "max_bytes re-encodes lower until it fits")
        XCTAssertGreaterThan(try Imgproxy.run("f:jpg/q:100", on: photo).0.data.count, 6000)
    }

    func testSkipProcessingAndCacheBusterKeepTheSource() throws {
        let gif = SampleImages.gif(width: 16, height: 16, frames: 2)
        XCTAssertEqual(try Imgproxy.run("w:8/skp:gif", on: gif).0.data, gif)
        XCTAssertEqual(try Imgproxy.run("w:8/skp:jpg", on: png).0.pixelWidth, 8)
        // imgproxy skips only when the URL names no format or the source's own: `f:png` on a skipped GIF converts it.
        XCTAssertEqual(try Imgproxy.run("w:8/skp:gif/f:gif", on: gif).0.data, gif)
        let converted = try Imgproxy.run("w:8/skp:gif/f:png", on: gif).0
        XCTAssertEqual([converted.format.rawValue, "\(converted.pixelWidth)"], ["png", "8"])
        XCTAssertEqual(try Imgproxy.run("cb:1", on: png).0.data, png)
    }

    /// A server's --max-animation-frames: the first N frames are processed (imgproxy's rule), never a 422.
    func testMaxAnimationFramesTakesTheFirstFrames() throws {
        let gif = try DWImage(data: SampleImages.gif(width: 16, height: 16, frames: 3))
        var transform = DWTransform()
        (transform.width, transform.maxAnimationFrames) = (8, 2)
        let out = try DWImageProcessors.apply(transform.processors(), to: gif)
        XCTAssertEqual([out.frameCount, out.pixelWidth], [2, 8])
        transform.maxAnimationFrames = 0
        XCTAssertEqual(try DWImageProcessors.apply(transform.processors(), to: gif).frameCount, 3)
    }
}
