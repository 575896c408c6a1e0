// imgproxy's output format for a URL that names none (IMGPROXY_PREFERRED_FORMATS, `--preferred-formats`): the
// source's format only when preferred, else the first preferred one that fits; Accept negotiation, f:, skp and raw
// first. URLs from PyPI's imgproxy package, run through the server's own plan (DWImageServer.plan(for:bucket:)).
import DWTestServer
import DWTestSupport
import DWWebImage
import DWWebImageProcessing
@testable import DWWebImageServer
import Foundation
import XCTest

final class PreferredFormatTests: XCTestCase {
    private var cacheRoot: URL!

    override func setUpWithError() throws {
        cacheRoot = FileManager.default.temporaryDirectory.appendingPathComponent("dwpref-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: cacheRoot)
    }

    func testWebPSourcesBecomeJPEGOrPNGOrGIFAndPreferredSourcesStay() throws {
        let server = try self.server { $0.resultLimits.maxAnimationFrames = 5 }
        let path = try Self.pypi("width=16, height=16, resizing_type='fit'")
        let opaque = try ParityTests.pillow("Image.new('RGB', (32, 32), (200, 0, 0)).save(out, 'WEBP')")
        XCTAssertEqual(try run(server, path, on: opaque).format, .jpeg, "a WebP source → JPEG")
        let alpha = try ParityTests.pillow("Image.new('RGBA', (32, 32), (0, 0, 200, 100)).save(out, 'WEBP')")
        let png = try run(server, path, on: alpha)
        XCTAssertEqual(png.format, .png, "a WebP with alpha → PNG")
        XCTAssertEqual(try png.bitmap().rgba(3, 3).3, 100, accuracy: 3, "alpha kept")
        let animated = try ParityTests.pillow(
            """
            frames = [Image.new('RGB', (32, 32), c) for c in [(255, 0, 0), (0, 255, 0), (0, 0, 255)]]
            frames[0].save(out, 'WEBP', save_all=True, append_images=frames[1:], duration=100, loop=0)
            """)
        let gif = try run(server, path, on: animated)
        XCTAssertEqual([gif.format, gif.frameCount] as [AnyHashable], [DWImageFormat.gif, 3], "animated WebP → GIF")
        XCTAssertEqual([gif.pixelWidth, gif.pixelHeight], [16, 16])
        let oneFrame = try self.server { $0.resultLimits.maxAnimationFrames = 1 }
        XCTAssertEqual(try run(oneFrame, path, on: animated).format, .jpeg, "one frame: a still image → JPEG")
        XCTAssertEqual(try run(server, path, on: SampleImages.png(width: 32, height: 32)).format, .png, "PNG stays")
        let apng = try ParityTests.pillow(
            """
            frames = [Image.new('RGB', (32, 32), c) for c in [(255, 0, 0), (0, 0, 255)]]
            frames[0].save(out, 'PNG', save_all=True, append_images=frames[1:], duration=100, loop=0)
            """)
        let still = try run(server, path, on: apng)
        XCTAssertEqual(
            [still.format, still.frameCount] as [AnyHashable], [DWImageFormat.png, 1], "APNG: PNG, as imgproxy")
        let jpeg = try ParityTests.pillow("Image.new('RGB', (32, 32), (9, 9, 9)).save(out, 'JPEG')")
        XCTAssertEqual(try run(server, path, on: jpeg).format, .jpeg, "JPEG stays")
        let padded = try run(server, try Self.pypi("width=16, height=16, resizing_type='fit'", "'pd:2'"), on: opaque)
        XCTAssertEqual(padded.format, .png, "padding without a background makes alpha → PNG")
        let flattened = try run(server, try Self.pypi("width=16, height=16", "'pd:2', 'bg:ffffff'"), on: alpha)
        XCTAssertEqual(flattened.format, .jpeg, "a background flattens: JPEG")
    }

    func testNamedFormatPreferredListNegotiationSkipAndRaw() throws {
        let opaque = try ParityTests.pillow("Image.new('RGB', (32, 32), (200, 0, 0)).save(out, 'WEBP')")
        let jpeg = try ParityTests.pillow("Image.new('RGB', (32, 32), (9, 9, 9)).save(out, 'JPEG')")
        let server = try self.server { $0.resultLimits.maxAnimationFrames = 5 }
        let named = try Self.pypi("width=16, height=16, extension='webp'")
        XCTAssertEqual(try run(server, named, on: jpeg).format, .webp, "f:webp still WebP")
        let preferWebP = try self.server {
            $0.imgproxy.preferredFormats = try! XCTUnwrap(DWPreferredFormats(parsing: "webp,png"))
        }
        let path = try Self.pypi("width=16, height=16, resizing_type='fit'")
        XCTAssertEqual(try run(preferWebP, path, on: jpeg).format, .webp, "--preferred-formats webp,png: JPEG → WebP")
        XCTAssertEqual(try run(preferWebP, path, on: opaque).format, .webp)
        // --auto-format: Accept wins over the preferred list (imgproxy's IMGPROXY_AUTO_WEBP/AVIF); AVIF only for a
        // still result, so an animation whose Accept allows only AVIF takes the preferred list's GIF.
        var auto = DWAcceptFormats()
        auto.auto = [.webp, .avif]
        let webp = auto.bucket(accept: "image/webp,*/*")
        XCTAssertEqual(try run(server, path, on: jpeg, bucket: webp).format, .webp, "Accept: WebP wins")
        let avif = auto.bucket(accept: "image/avif,*/*")
        XCTAssertEqual(try run(server, path, on: opaque, bucket: avif).format, .avif, "Accept: AVIF wins")
        let animated = SampleImages.gif(width: 20, height: 20, frames: 2)
        let gif = try run(server, path, on: animated, bucket: avif)
        XCTAssertEqual([gif.format, gif.frameCount] as [AnyHashable], [DWImageFormat.gif, 2], "no animated AVIF")
        // skp and raw: no conversion.
        let skipped = try run(server, try Self.pypi("width=16, height=16", "'skp:webp'"), on: opaque)
        XCTAssertEqual(skipped.data, opaque, "skp:webp serves the WebP source as it is")
        let skipNamed = try run(server, try Self.pypi("width=16, height=16, extension='png'", "'skp:webp'"), on: opaque)
        XCTAssertEqual(skipNamed.format, .png, "skp applies only when the URL names no format or the source's own")
        let raw = try run(server, "/insecure/raw:1/plain/http://127.0.0.1/a.webp", on: opaque)
        XCTAssertEqual(raw.data, opaque, "raw: the source's bytes")
        XCTAssertNil(DWPreferredFormats(parsing: "jpeg,bogus"))
        XCTAssertNil(DWPreferredFormats(parsing: ""))
        XCTAssertEqual(DWPreferredFormats(parsing: " webp , png,webp")?.formats, [.webp, .png])
    }

    /// `--max-result-pixels` counts every frame an animated result keeps — an animated WebP's as a GIF's — and only
    /// one when the output is a still image.
    func testResultPixelsCountTheFramesOfAnAnimatedWebPAsOfAGIF() throws {
        let frames = """
            frames = [Image.new('RGB', (64, 64), c) for c in [(255, 0, 0), (0, 255, 0), (0, 0, 255)]]
            """
        let webp = try ParityTests.pillow(
            frames + "\nframes[0].save(out, 'WEBP', save_all=True, append_images=frames[1:], duration=100, loop=0)")
        let gif = try ParityTests.pillow(
            frames + "\nframes[0].save(out, 'GIF', save_all=True, append_images=frames[1:], duration=100, loop=0)")
        // Two frames' worth: one 64×64 frame fits, the three an animation keeps do not.
        let server = try self.server {
            $0.resultLimits.maxAnimationFrames = 5; $0.resultLimits.maxPixels = 64 * 64 * 2
        }
        let keeps = try Self.pypi("width=64, height=64, resizing_type='fit', extension='webp'")
        for (name, source) in [("animated WebP", webp), ("GIF", gif)] {
            XCTAssertThrowsError(try run(server, keeps, on: source), "\(name) → animated WebP: 3 × 64×64 pixels") {
                error in
                XCTAssertEqual((error as? DWWebImageError)?.code, .tooLarge)
            }
            let still = try run(
                server, try Self.pypi("width=64, height=64, resizing_type='fit', extension='jpg'"), on: source)
            XCTAssertEqual(
                [still.format, still.frameCount] as [AnyHashable], [DWImageFormat.jpeg, 1], "\(name) → JPEG: one frame")
        }
    }

    /// A server of its own (nothing listens; only its chain is used).
    private func server(_ change: (inout DWServeConfiguration) throws -> Void = { _ in }) throws -> DWImageServer {
        var configuration = DWServeConfiguration()
        configuration.cacheDirectory = cacheRoot.appendingPathComponent(UUID().uuidString)
        configuration.tunesMalloc = false
        try change(&configuration)
        return DWImageServer(configuration: configuration)
    }

    /// `data` through the plan `server` renders for `path` (`bucket`: what the request's Accept allows).
    private func run(
        _ server: DWImageServer, _ path: String, on data: Data,
        bucket: DWAcceptBucket = DWAcceptBucket()
    ) throws -> DWImage {
        let url = try DWProxyURL(target: path, presets: DWPresets())
        let source = try DWImage(data: data)
        return try server.plan(for: url, bucket: bucket)?.process(source) ?? source
    }

    /// The path PyPI's imgproxy package builds for a WebP source with these keyword arguments and extra options.
    private static func pypi(_ kwargs: String, _ extra: String = "") throws -> String {
        try Python.system.script(
            "import imgproxy; print(imgproxy.ImgProxy('http://127.0.0.1/a.webp', \(kwargs))(\(extra)))")
    }
}
