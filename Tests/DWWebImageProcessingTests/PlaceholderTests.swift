// BlurHash and dominant colours: the hash decodes back (a decoder here, after woltapp/blurhash's) to an image close
// to Pillow's downscale of the original; flat colours come back exactly; dominant colours find the shares.
import DWTestServer
import DWTestSupport
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class PlaceholderTests: XCTestCase {
    func testBlurHashRoundTripsCloseToADownscaledImage() throws {
        let (image, reference) = try pillowGradient(width: 240, height: 160, thumb: (16, 10))
        let hash = try image.blurHash(components: (x: 6, y: 5))
        XCTAssertEqual(hash.count, 4 + 2 * 6 * 5)
        // Decoded at full size, then averaged over the same 15×16 blocks as Pillow's box downscale.
        let decoded = try XCTUnwrap(BlurHashDecoder.decode(hash, width: 240, height: 160))
        var total = 0
        for ty in 0..<10 {
            for tx in 0..<16 {
                for c in 0..<3 {
                    var sum = 0
                    for y in ty * 16..<(ty + 1) * 16 {
                        for x in tx * 15..<(tx + 1) * 15 { sum += Int(decoded[(y * 240 + x) * 3 + c]) }
                    }
                    total += abs(sum / 240 - Int(reference[(ty * 16 + tx) * 3 + c]))
                }
            }
        }
        let mean = Double(total) / Double(16 * 10 * 3)
        // The reference implementation's own hash of this image (full resolution, PyPI blurhash 1.1.5) decodes to a
        // mean error of 15.3 here: 6×5 cosines and 19 levels per AC term are all a BlurHash holds. Ours (from a
        // 64-sample copy) measured 16.0.
        XCTAssertLessThan(mean, 18, "mean channel error against Pillow's 16×10 box downscale")
        XCTAssertEqual(try image.blurHash(components: (x: 6, y: 5)), hash, "deterministic")
    }

    func testBlurHashMatchesTheReferenceImplementation() throws {
        // Expected hashes from the Python port of woltapp/blurhash (PyPI blurhash 1.1.5) over the same pixels.
        let image = try DWImage(data: SampleImages.png(width: 32, height: 24, seed: 3))
        XCTAssertEqual(try image.blurHash(components: (x: 4, y: 3)), "LjFDkm2WwxW:m=WVjtf8f%fQfQfP")
        XCTAssertEqual(try image.blurHash(components: (x: 1, y: 1)), "00FDkm")
        XCTAssertEqual(
            try image.blurHash(components: (x: 9, y: 9)),
            "|jFDkm2WwxW:a|oKWpoKWpm=WVjtf8fQf7fQf7fQf%fQfQfPfQfQfQfQfQn*WpjtfQfQfQfQfQfQf7fQfQfQfQfQfQfQfQoKWpjtfQfQfQfQfQfQf7fQfQfQfQfQfQfQfQoKWpjtfQfQfQfQfQfQf7fQfQfQfQfQfQfQfQ"
        )
        let flat = try DWImage(
            data: SampleImages.gif(
                width: 20, height: 10, palette: [(200, 40, 90)],
                frames: [[UInt8](repeating: 0, count: 200)]))
        let hash = try flat.blurHash()
        XCTAssertEqual(hash, "LIM_Ai,ufQ,u||o2fQo2fQfQfQfQ")
        XCTAssertEqual(
            BlurHashDecoder.decode83(Array(hash)[2..<6]), 200 << 16 | 40 << 8 | 90, "the DC term is the colour")
        XCTAssertThrowsError(try flat.blurHash(components: (x: 0, y: 3)))
        XCTAssertThrowsError(try flat.blurHash(components: (x: 4, y: 10)))
    }

    func testDominantColoursAndTheirShares() throws {
        // 100 × 10: 60 columns red, 30 blue, 10 green.
        var indices: [UInt8] = []
        for _ in 0..<10 { for x in 0..<100 { indices.append(x < 60 ? 0 : x < 90 ? 1 : 2) } }
        let data = SampleImages.gif(
            width: 100, height: 10, palette: [(230, 20, 20), (20, 40, 220), (30, 200, 60)],
            frames: [indices])
        let image = try DWImage(data: data)
        XCTAssertEqual(try image.dominantColor, DWColor(red: 230, green: 20, blue: 20))
        let colours = try image.dominantColors(count: 3)
        XCTAssertEqual(colours.map(\.color.hex), ["#e61414", "#1428dc", "#1ec83c"])
        XCTAssertEqual(colours.map(\.fraction), [0.6, 0.3, 0.1], accuracy: 0.03)
        XCTAssertEqual(try image.dominantColors(count: 8).count, 3, "no more colours than the image has")
    }

    func testTransparentPixelsHaveNoColour() throws {
        let image = try Fixtures.image("q.png")  // 64×48, bottom-right quadrant clear
        let shares = try image.dominantColors(count: 4)
        XCTAssertEqual(shares.count, 3, "three visible quadrants")
        XCTAssertEqual(shares.map(\.fraction).reduce(0, +), 1, accuracy: 0.001)
    }

    /// A 240×160 gradient with a soft disc (a photo's smoothness, not an icon's edges), made by Pillow, and Pillow's box downscale of it (RGB bytes).
    private func pillowGradient(width: Int, height: Int, thumb: (Int, Int)) throws -> (DWImage, [UInt8]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dwblur-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = """
            import sys
            from PIL import Image, ImageDraw, ImageFilter
            w, h, tw, th, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
            im = Image.new("RGB", (w, h))
            px = im.load()
            for y in range(h):
                for x in range(w):
                    px[x, y] = (x * 255 // w, y * 255 // h, 128)
            disc = Image.new("RGB", (w, h), (0, 0, 0))
            ImageDraw.Draw(disc).ellipse((w // 3, h // 4, w // 3 + h // 2, 3 * h // 4), fill=(250, 230, 40))
            mask = Image.new("L", (w, h), 0)
            ImageDraw.Draw(mask).ellipse((w // 3, h // 4, w // 3 + h // 2, 3 * h // 4), fill=255)
            im.paste(disc, (0, 0), mask.filter(ImageFilter.GaussianBlur(12)))
            im.save(out + "/g.png")
            open(out + "/g.rgb", "wb").write(im.resize((tw, th), Image.BOX).tobytes())
            """
        let sizes = ["\(width)", "\(height)", "\(thumb.0)", "\(thumb.1)"]
        _ = try Python.system.run(["-c", script] + sizes + [dir.path])  // Pillow (scripts/setup.sh installs it)
        let image = try DWImage(data: Data(contentsOf: dir.appendingPathComponent("g.png")))
        return (image, [UInt8](try Data(contentsOf: dir.appendingPathComponent("g.rgb"))))
    }
}

private func XCTAssertEqual(
    _ a: [Double], _ b: [Double], accuracy: Double, file: StaticString = #filePath,
    line: UInt = #line
) {
    XCTAssertEqual(a.count, b.count, "\(a) vs \(b)", file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, "\(a) vs \(b)", file: file, line: line) }
}

/// BlurHash's reference decoder (woltapp/blurhash, TypeScript `decode`), for the round trip: RGB bytes.
enum BlurHashDecoder {
    private static let digits = Array(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    static func decode83<S: Sequence<Character>>(_ s: S) -> Int? {
        var value = 0
        for c in s {
            guard let digit = digits.firstIndex(of: c) else { return nil }
            value = value * 83 + digit
        }
        return value
    }

    static func decode(_ hash: String, width: Int, height: Int) -> [UInt8]? {
        let chars = Array(hash)
        guard chars.count >= 6, let sizeFlag = decode83(Substring(String(chars[0]))) else { return nil }
        let numY = sizeFlag / 9 + 1, numX = sizeFlag % 9 + 1
        guard chars.count == 4 + 2 * numX * numY, let quantised = decode83(Substring(String(chars[1]))),
            let dc = decode83(Substring(String(chars[2..<6])))
        else { return nil }
        let maximum = Double(quantised + 1) / 166
        var colors = [(toLinear(dc >> 16), toLinear((dc >> 8) & 255), toLinear(dc & 255))]
        for i in 1..<numX * numY {
            guard let value = decode83(Substring(String(chars[(4 + i * 2)..<(6 + i * 2)]))) else { return nil }
            func ac(_ q: Int) -> Double { let v = Double(q - 9) / 9; return (v < 0 ? -1 : 1) * v * v * maximum }
            colors.append((ac(value / 361), ac((value / 19) % 19), ac(value % 19)))
        }
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                var (r, g, b) = (0.0, 0.0, 0.0)
                for j in 0..<numY {
                    for i in 0..<numX {
                        let basis =
                            cos(Double.pi * Double(x * i) / Double(width))
                            * cos(Double.pi * Double(y * j) / Double(height))
                        let c = colors[i + j * numX]
                        r += c.0 * basis; g += c.1 * basis; b += c.2 * basis
                    }
                }
                pixels += [toSRGB(r), toSRGB(g), toSRGB(b)]
            }
        }
        return pixels
    }

    private static func toLinear(_ value: Int) -> Double {
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    private static func toSRGB(_ value: Double) -> UInt8 {
        let v = max(0, min(1, value))
        return UInt8(v <= 0.0031308 ? Int(v * 12.92 * 255 + 0.5) : Int((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5))
    }
}
