// Animated WebP and APNG: files built chunk by chunk by Fixtures/make_animations.py (frames smaller than the canvas
// at offsets, blend OVER with alpha, dispose BACKGROUND and PREVIOUS; RGBA, grey+alpha and a palette with tRNS; a
// hidden default image) and read back by Pillow; every composited frame, delay and loop count must agree with the
// reference.
import DWLocking
import DWTestServer
import DWTestSupport
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class AnimatedFormatsTests: XCTestCase {
    /// The generated files, made once per run (Pillow takes about a second).
    nonisolated(unsafe) private static var made: URL?

    private func fixtures() throws -> URL {
        if let made = Self.made { return made }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dwanim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = Fixtures.directory.appendingPathComponent("make_animations.py").path
        _ = try Python.system.run(["-W", "ignore", script, directory.path])  // needs Pillow (scripts/setup.sh)
        Self.made = directory
        return directory
    }

    private struct Reference {
        let image: DWImage
        let width: Int, height: Int, frames: Int, loop: Int
        let delaysMS: [Double]
        let pillowAgrees: [Bool]
        let pillow: [UInt8]
        let reference: [UInt8]
    }

    private func load(_ name: String, _ ext: String) throws -> Reference {
        let dir = try fixtures()
        let facts = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("\(name).json")))
                as? [String: Any])
        return Reference(
            image: try DWImage(data: Data(contentsOf: dir.appendingPathComponent("\(name).\(ext)"))),
            width: facts["width"] as? Int ?? 0, height: facts["height"] as? Int ?? 0,
            frames: facts["frames"] as? Int ?? 0, loop: facts["loop"] as? Int ?? -1,
            delaysMS: facts["delays_ms"] as? [Double] ?? [], pillowAgrees: facts["pillow_agrees"] as? [Bool] ?? [],
            pillow: [UInt8](try Data(contentsOf: dir.appendingPathComponent("\(name).pillow.rgba"))),
            reference: [UInt8](try Data(contentsOf: dir.appendingPathComponent("\(name).reference.rgba"))))
    }

    /// Differences over ±1 in a channel (colour ignored where both are fully transparent); the first one described.
    private func compare(_ ours: [UInt8], _ theirs: ArraySlice<UInt8>, width: Int) -> (count: Int, first: String?) {
        var count = 0, first: String?
        let base = theirs.startIndex
        for p in stride(from: 0, to: ours.count, by: 4) {
            if ours[p + 3] == 0 && theirs[base + p + 3] == 0 { continue }
            if (0..<4).contains(where: { abs(Int(ours[p + $0]) - Int(theirs[base + p + $0])) > 1 }) {
                count += 1
                if first == nil {
                    first =
                        "(\(p / 4 % width), \(p / 4 / width)): ours \(Array(ours[p..<p + 4])), "
                        + "reference \(Array(theirs[base + p..<base + p + 4]))"
                }
            }
        }
        return (count, first)
    }

    /// Frame count, canvas, loop count and delays from the structure; every frame (in order, then backwards
    /// through a small buffer) against the browser reference, and against Pillow where Pillow composites as
    /// browsers do.
    private func assertMatches(_ name: String, _ ext: String, file: StaticString = #filePath, line: UInt = #line) throws
    {
        DWImageProcessing.registerAnimationDecoders()
        let ref = try load(name, ext)
        XCTAssertEqual(ref.image.frameCount, ref.frames, "\(name): frame count", file: file, line: line)
        XCTAssertEqual(ref.image.loopCount, ref.loop, "\(name): loop count", file: file, line: line)
        XCTAssertTrue(ref.image.isAnimated, file: file, line: line)
        // Browsers show delays of 10 ms or less as 100 ms; Pillow reports them raw.
        let expectedDelays = ref.delaysMS.map { $0 <= 10 ? 0.1 : $0 / 1000 }
        XCTAssertEqual(
            ref.image.frameDelays.map { ($0 * 1000).rounded() }, expectedDelays.map { ($0 * 1000).rounded() },
            "\(name): delays from the chunks", file: file, line: line)
        let animation = try XCTUnwrap(ref.image.animatedImage(bufferCount: 2), file: file, line: line)
        XCTAssertEqual(animation.frameCount, ref.frames, file: file, line: line)
        XCTAssertEqual(animation.loopCount, ref.loop, file: file, line: line)
        XCTAssertEqual([animation.width, animation.height], [ref.width, ref.height], file: file, line: line)
        XCTAssertEqual(animation.frameDelays, ref.image.frameDelays, file: file, line: line)
        let size = ref.width * ref.height * 4
        var seen = 0
        animation.forEachFrame { frame in
            let slice = frame.index * size..<(frame.index + 1) * size
            XCTAssertTrue(frame.isComplete, "\(name) frame \(frame.index)", file: file, line: line)
            XCTAssertEqual(frame.delay, expectedDelays[frame.index], accuracy: 0.0005, file: file, line: line)
            let browsers = compare(frame.pixels, ref.reference[slice], width: ref.width)
            XCTAssertEqual(
                browsers.count, 0, "\(name) frame \(frame.index) vs the reference: \(browsers.first ?? "")",
                file: file, line: line)
            if ref.pillowAgrees[frame.index] {
                let pillow = compare(frame.pixels, ref.pillow[slice], width: ref.width)
                XCTAssertEqual(
                    pillow.count, 0, "\(name) frame \(frame.index) vs Pillow: \(pillow.first ?? "")",
                    file: file, line: line)
            }
            seen += 1
            return true
        }
        XCTAssertEqual(seen, ref.frames, file: file, line: line)
        // Random access: backwards through a two-frame buffer must give the same canvases.
        for index in (0..<ref.frames).reversed() {
            let slice = index * size..<(index + 1) * size
            let again = compare(animation.frame(at: index).pixels, ref.reference[slice], width: ref.width)
            XCTAssertEqual(
                again.count, 0, "\(name) frame \(index) by random access: \(again.first ?? "")",
                file: file, line: line)
        }
    }

    func testAPNGThatPillowCompositesAsBrowsersDoMatchesPillowFrameByFrame() throws {
        let ref = try load("apng_pillow", "png")
        XCTAssertEqual(ref.pillowAgrees, Array(repeating: true, count: 6), "Pillow is the reference for every frame")
        try assertMatches("apng_pillow", "png")
    }

    func testAPNGWithSemiTransparentOverAndPreviousMatchesTheSpecification() throws {
        try assertMatches("apng_rgba", "png")
    }

    func testPalettedAPNGWithAHiddenDefaultImage() throws {
        try assertMatches("apng_palette", "png")
    }

    func testGreyAlphaAPNGMatchesTheSpecification() throws {
        try assertMatches("apng_grey", "png")
    }

    func testAnimatedWebPMatchesPillowFrameByFrame() throws {
        let ref = try load("webp_anim", "webp")
        XCTAssertEqual(ref.pillowAgrees, Array(repeating: true, count: 6))
        try assertMatches("webp_anim", "webp")
    }

    func testLimitsAreCheckedFromTheStructureWithTheGIFErrorCode() throws {
        DWImageProcessing.registerAnimationDecoders()
        for (name, ext) in [("apng_rgba", "png"), ("webp_anim", "webp")] {
            let image = try load(name, ext).image
            for limits in [
                DWAnimatedImage.Limits(maxFrameCount: 5), DWAnimatedImage.Limits(maxTotalPixelCount: 1500),
                DWAnimatedImage.Limits(maxPixelCount: 1000)
            ] {
                XCTAssertThrowsError(try image.animatedImage(limits: limits), "\(name) \(limits)") { error in
                    XCTAssertEqual((error as? DWWebImageError)?.code, .tooLarge, "\(name) \(limits)")
                }
            }
            XCTAssertNotNil(try image.animatedImage(limits: DWAnimatedImage.Limits(maxFrameCount: 6)))
        }
    }

    func testBrokenAPNGIsAClearError() throws {
        DWImageProcessing.registerAnimationDecoders()
        var bytes = [UInt8](try load("apng_rgba", "png").image.data)
        // The second fcTL's x offset pushed past the canvas.
        let fcTL = Array("fcTL".utf8)
        let second = (0..<bytes.count - 4).filter { Array(bytes[$0..<$0 + 4]) == fcTL }[1]
        bytes[second + 4 + 12 + 3] = 200
        let image = try DWImage(data: Data(bytes))
        XCTAssertThrowsError(try image.animatedImage(limits: .default)) { error in
            XCTAssertEqual((error as? DWWebImageError)?.code, .notAnImage)
        }
        XCTAssertNil(image.animatedImage())
    }

    /// A resize applies to every frame; an APNG comes out as an animated WebP (PNG output would keep one frame),
    /// a WebP as a WebP, and a conversion to GIF animates too; delays and plays survive.
    func testProcessorsApplyToEveryFrameAndTheOutputKeepsAnimating() throws {
        DWImageProcessing.registerAnimationDecoders()
        for (name, ext) in [("apng_rgba", "png"), ("webp_anim", "webp")] {
            let ref = try load(name, ext)
            let resized = try DWResize(width: 20, height: nil).process(ref.image)
            XCTAssertEqual(resized.format, .webp, name)
            XCTAssertEqual([resized.pixelWidth, resized.pixelHeight], [20, 15], name)
            XCTAssertEqual(resized.frameCount, ref.frames, name)
            XCTAssertEqual(resized.loopCount, ref.loop, name)
            XCTAssertEqual(resized.frameDelays, ref.image.frameDelays, name)
            let frames = try XCTUnwrap(resized.animatedImage(), name)
            let size = ref.width * ref.height * 4
            frames.forEachFrame { frame in
                // Each output frame is its own source frame halved (2×2 means, lossy WebP: a few levels off).
                let source = Array(ref.reference[frame.index * size..<(frame.index + 1) * size])
                var total = 0
                for y in 0..<15 {
                    for x in 0..<20 {
                        let p = frame.rgba(x: x, y: y)
                        var alpha = 0
                        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                            alpha += Int(source[((2 * y + dy) * ref.width + 2 * x + dx) * 4 + 3])
                        }
                        total += abs(Int(p.a) - alpha / 4)
                    }
                }
                XCTAssertLessThan(total / 300, 8, "\(name) frame \(frame.index): alpha of the halved frame")
                return true
            }
        }
        let gif = try DWConvert(format: .gif).process(try load("apng_rgba", "png").image)
        XCTAssertEqual(gif.format, .gif)
        XCTAssertEqual(gif.frameCount, 6)
        XCTAssertEqual(
            gif.animatedImage()?.netscapeLoopCount, 2, "3 plays are NETSCAPE2.0 value 2 (browsers play it 3 times)")
    }

    /// `manager.facts(withURL:)` reports frames, loop count and duration from the head, and from a cached image.
    func testFactsReportFramesLoopCountAndDuration() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dwanim-facts-\(UUID().uuidString)")
        let center = NotificationCenter()
        let manager = DWWebImageManager(
            cache: DWWebImageCache(rootDirectory: root, notificationCenter: center), notificationCenter: center,
            removeExpiredAtStart: false)
        let server = try LoopbackHTTPServer()
        defer {
            manager.invalidate()
            server.shutdown()
            try? FileManager.default.removeItem(at: root)
        }
        for (name, ext) in [("apng_rgba", "png"), ("webp_anim", "webp")] {
            let ref = try load(name, ext)
            server.setRoute("/\(name)", .ok(ref.image.data))
            let duration = ref.delaysMS.reduce(0) { $0 + ($1 <= 10 ? 100 : $1) } / 1000
            let head = try await manager.facts(withURL: server.url("/\(name)"))
            XCTAssertEqual([head.frameCount, head.loopCount], [ref.frames, ref.loop], name)
            XCTAssertEqual(head.duration ?? -1, duration, accuracy: 1e-9, name)
            XCTAssertEqual(ref.image.duration, duration, accuracy: 1e-9, name)
        }
    }

    /// `verifyDecodes()` (`--verify`) composites every frame: a later frame's corrupt data fails it, which
    /// libvips alone (the first frame, or an APNG's default image) would pass.
    func testVerifyDecodesEveryFrame() throws {
        for (name, ext, chunk) in [("apng_rgba", "png", "fdAT"), ("webp_anim", "webp", "ANMF")] {
            let image = try load(name, ext).image
            XCTAssertNoThrow(try image.verifyDecodes(), name)
            var bytes = [UInt8](image.data)
            let type = Array(chunk.utf8)
            let last = try XCTUnwrap((0..<bytes.count - 4).last { Array(bytes[$0..<$0 + 4]) == type }, name)
            for i in last + 40..<min(last + 70, bytes.count - 8) { bytes[i] ^= 0x5A }  // garble the last frame's data
            let broken = try DWImage(data: Data(bytes))
            XCTAssertEqual(broken.frameCount, image.frameCount, name)
            XCTAssertThrowsError(try broken.verifyDecodes(), name) { error in
                XCTAssertEqual((error as? DWWebImageError)?.code, .notAnImage, name)
                XCTAssertTrue((error as? DWWebImageError)?.message.contains("frame 5") ?? false, "\(error)")
            }
        }
    }

    func testThePlayerPlaysAPNGAndWebPWithTheirDelays() throws {
        DWImageProcessing.registerAnimationDecoders()
        for (name, ext) in [("apng_rgba", "png"), ("webp_anim", "webp")] {
            let ref = try load(name, ext)
            let clock = VirtualClock()
            let delivered = DWLock<[(index: Int, delay: TimeInterval)]>([])
            let done = expectation(description: "\(name) finished")
            let player = try XCTUnwrap(DWAnimatedImagePlayer(image: ref.image, loopMode: .file, clock: clock))
            XCTAssertEqual(player.totalPlays, ref.loop)
            let plays = ref.loop == 0 ? 2 : ref.loop
            let played = DWAnimatedImagePlayer(player.animation, loopMode: .count(plays), clock: clock)
            played.play(
                frameHandler: { frame in
                    delivered.withLock { $0.append((frame.index, frame.delay)) }
                },
                completion: { ending in
                    XCTAssertEqual(ending, .finished)
                    done.fulfill()
                })
            wait(for: [done], timeout: 30)
            let delays = ref.image.frameDelays
            var order: [Int] = [], deadlines: [TimeInterval] = [], t = 0.0
            for _ in 0..<plays {
                for (i, d) in delays.enumerated() {
                    order.append(i)
                    t += d
                    deadlines.append(t)
                }
            }
            let got = delivered.withLock { $0 }
            XCTAssertEqual(got.map(\.index), order, "\(name): every frame in order, \(plays) plays")
            XCTAssertEqual(got.map(\.delay), order.map { delays[$0] }, "\(name): each frame with its delay")
            // Each frame is due when the ones before it have had their time: the timers the player set.
            let asked = clock.deadlines
            XCTAssertEqual(asked.count, deadlines.count, "\(name): one timer per frame shown")
            for (a, e) in zip(asked, deadlines) { XCTAssertEqual(a, e, accuracy: 1e-6, "\(name): timer deadlines") }
        }
    }
}

/// A clock whose time jumps to each deadline when it fires, so playback runs as fast as the machine allows;
/// it records every deadline the player asks for.
private final class VirtualClock: DWAnimationClock, Sendable {
    private let state = DWLock<(now: TimeInterval, deadlines: [TimeInterval])>((0, []))

    var deadlines: [TimeInterval] { state.withLock { $0.deadlines } }

    func now() -> TimeInterval { state.withLock { $0.now } }

    func schedule(at deadline: TimeInterval, _ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.deadlines.append(deadline) }
        DispatchQueue.global().async {
            self.state.withLock { $0.now = max($0.now, deadline) }
            action()
        }
    }
}
