// GIF decoding with giflib: pixels against Pillow and against hand-computed expectations, timing, loops,
// limits, the frame buffer, and hostile input (truncations, random bytes, giflib's known weak spots).
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class GIFDecoderTests: XCTestCase {
    // MARK: - Pixels against Pillow

    /// FNV-1a 64 of each frame's RGBA (alpha-0 pixels zeroed), from Pillow 13.0.0 via bench/gif/pillow_reference.py
    /// over the files `testFramesMatchPillow` writes with `$DW_GIF_DUMP` set. Pillow agrees with browsers on these
    /// fixtures; where it does not (frames outside the screen, disposal 2 without transparency, a first frame not
    /// covering the screen), the tests below check pixels by hand.
    static let pillowHashes: [String: [UInt64]] = [
        "delays": [
            0xe97b040679825f05, 0x9db68010400905a5, 0x10e65762d0e55085, 0x10e65762d0e55085, 0x10e65762d0e55085,
            0x15fb4d3bb77edca5
        ],
        "dispose_background": [0x0d27501941c5636d, 0x3cd5ebc565850e43, 0xedff6778d74ff10e, 0x4bc7143fe31f4c95],
        "dispose_keep": [0x4fa5f96fa7a91f80, 0x486bdfa8b4dc8cdc, 0x80c805c12ddc87ad],
        "dispose_previous": [0x9e42f983ca93955b, 0xe0fcfce46b5ccbf3, 0xb027b59e94b538ec, 0x3fe119f3573cbaa1],
        "index_out_of_range": [0x912f99b76c9b9296],
        "interlaced": [0x937d44de10a39832, 0x14a100d31810fa23, 0x4e424be09a935fd4, 0xdb4a9315d7102d61],
        "local_color_tables": [0x3158d4d5b7f07298, 0x635b7ec7173b43ca, 0x89a5c1f15653d633],
        "no_color_map": [0x7fb92606611c1f39],
        "transparency": [0xc0adec23e0098a3a, 0xa7e9da2d8ef3b885]
    ]

    /// With `$DW_GIF_DUMP` set, also writes the fixtures there as `<name>.gif`, for `bench/gif/pillow_reference.py`
    /// to make the hashes above from.
    func testFramesMatchPillow() throws {
        XCTAssertEqual(Self.pillowHashes.count, GIFFixtures.pillowComparable.count, "every fixture has Pillow hashes")
        if let dir = ProcessInfo.processInfo.environment["DW_GIF_DUMP"] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for (name, data) in GIFFixtures.pillowComparable {
                try data.write(to: URL(fileURLWithPath: dir).appendingPathComponent("\(name).gif"))
            }
        }
        for (name, data) in GIFFixtures.pillowComparable {
            let frames = try decodeAll(data)
            let expected = try XCTUnwrap(Self.pillowHashes[name], name)
            XCTAssertEqual(frames.map { fnv1a64($0.pixels) }, expected, name)
            XCTAssertTrue(frames.allSatisfy(\.isComplete), name)
        }
    }

    // MARK: - Pixels by hand

    func testDisposalBackgroundClearsToTransparentAndPreviousRestores() throws {
        let bg = try decodeAll(GIFFixtures.disposeBackground)
        // Frame 1 (disposal 2) drew index 5 at (1...4, 1...3); frame 2 is drawn after clearing it to transparent.
        XCTAssertEqual(px(bg[1], 1, 1), rgb(GIFFixtures.palette8[5]))
        XCTAssertEqual(px(bg[2], 1, 1), clear, "restore to background = transparent, not the background colour")
        XCTAssertEqual(px(bg[2], 0, 0), px(bg[0], 0, 0), "outside the disposed rect nothing changes")

        let prev = try decodeAll(GIFFixtures.disposePrevious)
        // Frame 1 covers (2...6, 2...6) with index 6 and has disposal 3: frame 2 starts from frame 0's pixels there.
        XCTAssertEqual(px(prev[1], 3, 3), rgb(GIFFixtures.palette8[6]))
        XCTAssertEqual(px(prev[2], 6, 6), px(prev[0], 6, 6))
        // Frame 2 (disposal 3, transparent 0) is undone before frame 3: frame 3 equals frame 0 plus its own rect.
        for y in 0..<9 {
            for x in 0..<9 {
                let expected = (x >= 6 && y < 3) ? rgb(GIFFixtures.palette8[7]) : px(prev[0], x, y)
                XCTAssertEqual(px(prev[3], x, y), expected, "(\(x), \(y))")
            }
        }
    }

    func testFramesOutsideTheScreenAreClipped() throws {
        let image = try DWImage(data: GIFFixtures.outsideScreen)
        XCTAssertEqual(image.frameCount, 4)
        let frames = try decodeAll(GIFFixtures.outsideScreen)
        XCTAssertTrue(frames.allSatisfy { $0.width == 6 && $0.height == 5 && $0.pixels.count == 6 * 5 * 4 })
        let red = rgb(GIFFixtures.palette4[0]), green = rgb(GIFFixtures.palette4[1]),
            yellow = rgb(GIFFixtures.palette4[3])
        for y in 0..<5 {
            for x in 0..<6 {
                let inFrame1 = x >= 4 && y >= 3  // frame 1 at (4, 3) 5×4, clipped to 2×2
                XCTAssertEqual(px(frames[1], x, y), inFrame1 ? green : red, "(\(x), \(y))")
                // Frame 1's disposal 2 clears its clipped rect; frame 2 lies wholly off-screen and draws nothing.
                XCTAssertEqual(px(frames[2], x, y), inFrame1 ? clear : red, "(\(x), \(y))")
                // Frame 3 is 300×2 at (0, 4): only its first row, clipped to 6 pixels, is visible.
                XCTAssertEqual(px(frames[3], x, y), y == 4 ? yellow : (inFrame1 ? clear : red), "(\(x), \(y))")
            }
        }
    }

    func testNoColorMapUsesGreyAndOutOfRangeIndicesAreBlack() throws {
        let grey = try decodeAll(GIFFixtures.noColorMap)[0]
        for i in 0..<15 { XCTAssertEqual(px(grey, i % 5, i / 5), [UInt8(i * 17), UInt8(i * 17), UInt8(i * 17), 255]) }
        let range = try decodeAll(GIFFixtures.indexOutOfRange)[0]
        XCTAssertEqual(px(range, 3, 0), rgb(GIFFixtures.palette4[3]))
        for x in 0..<4 { XCTAssertEqual(px(range, x, 1), [0, 0, 0, 255]) }
    }

    func testTransparencyLeavesTheCanvasAndOutOfRangeTransparentIndexIsIgnored() throws {
        let frames = try decodeAll(GIFFixtures.transparency)
        let first = GIFFixtures.pattern(8, 8, colors: 8, seed: 18),
            second = GIFFixtures.pattern(8, 8, colors: 8, seed: 19)
        for i in 0..<64 {
            let (x, y) = (i % 8, i / 8)
            XCTAssertEqual(px(frames[0], x, y), first[i] == 2 ? clear : rgb(GIFFixtures.palette8[Int(first[i])]))
            XCTAssertEqual(
                px(frames[1], x, y), second[i] == 5 ? px(frames[0], x, y) : rgb(GIFFixtures.palette8[Int(second[i])]))
        }
        var g = GIFBuilder(width: 2, height: 1, globalPalette: GIFFixtures.palette4)
        g.frames.append(.init(width: 2, height: 1, pixels: [0, 7], transparent: 7, codeSize: 3))
        let frame = try decodeAll(g.encode())[0]
        XCTAssertEqual(px(frame, 1, 0), [0, 0, 0, 255], "transparent index 7 is outside the 4-colour map: ignored")
    }

    // MARK: - Timing and loops

    func testDelaysAndDuration() throws {
        let image = try DWImage(data: GIFFixtures.delays)
        XCTAssertEqual(image.frameDelays, [0.1, 0.1, 0.02, 0.1, 0.5, 0.1], "≤ 10 ms and missing GCB → 100 ms")
        XCTAssertEqual(image.duration, 0.92, accuracy: 1e-9)
        XCTAssertTrue(image.isAnimated)
        let animation = try XCTUnwrap(image.animatedImage())
        XCTAssertEqual(animation.frameDelays, image.frameDelays)
        XCTAssertEqual(animation.frame(at: 2).delay, 0.02)
    }

    func testLoopCounts() throws {
        XCTAssertEqual(try DWImage(data: GIFFixtures.loops(0)).loopCount, 0, "NETSCAPE 0 = forever")
        XCTAssertEqual(try DWImage(data: GIFFixtures.loops(3)).loopCount, 3)
        XCTAssertEqual(try DWImage(data: GIFFixtures.loops(nil)).loopCount, 1, "absent = play once")
        XCTAssertEqual(try DWAnimatedImage(data: GIFFixtures.loops(3)).netscapeLoopCount, 3)
        XCTAssertNil(try DWAnimatedImage(data: GIFFixtures.loops(nil)).netscapeLoopCount)
        let still = try DWImage(data: SampleImages.gif(width: 3, height: 3, loopCount: 5))
        XCTAssertEqual(still.loopCount, 0, "a single frame is a still image")
        XCTAssertFalse(still.isAnimated)
        XCTAssertNil(try DWImage(data: SampleImages.png(width: 2, height: 2)).animatedImage())
    }

    /// The frame count and loop count DWImage reports (and dwfetch prints) are giflib's view, not the sniffer's.
    func testFrameCountIsGiflibsView() throws {
        var g = GIFBuilder(width: 4, height: 4, globalPalette: GIFFixtures.palette4, loop: 2)
        g.frames.append(.init(width: 4, height: 4, pixels: GIFFixtures.solid(4, 4, 1)))
        g.frames.append(.init(width: 4, height: 4, pixels: GIFFixtures.solid(4, 4, 2)))
        // giflib refuses a code size over 8; GIFWideLZW decodes it, as libnsgif and Pillow do.
        g.frames.append(.init(width: 4, height: 4, pixels: GIFFixtures.solid(4, 4, 3), codeSize: 10))
        let data = g.encode()
        XCTAssertEqual(ImageSniffer.inspect(data)?.frameCount, 3, "the byte walker accepts code size 10")
        let image = try DWImage(data: data)
        XCTAssertEqual(image.frameCount, 3)
        XCTAssertEqual(image.loopCount, 2)
        XCTAssertFalse(image.isPartial)
        let frames = try decodeAll(data)
        XCTAssertEqual(frames.count, 3)
        XCTAssertEqual(px(frames[2], 3, 3), rgb(GIFFixtures.palette4[3]))
    }

    // MARK: - Limits

    func testHugeScreenAndHugeFrameAre10005BeforeAllocating() throws {
        var g = GIFBuilder(width: 65535, height: 65535, globalPalette: GIFFixtures.palette4)
        g.frames.append(.init(width: 1, height: 1, pixels: [0]))
        let huge = g.encode()
        XCTAssertLessThan(huge.count, 80)
        for attempt in [{ _ = try DWImage(data: huge) }, { _ = try DWAnimatedImage(data: huge) }] {
            XCTAssertThrowsError(try attempt()) { XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge) }
        }
        // A small screen with a 65535×65535 frame rect: also refused before any pixel memory exists.
        var f = GIFBuilder(width: 4, height: 4, globalPalette: GIFFixtures.palette4)
        f.frames.append(.init(width: 4, height: 4, pixels: GIFFixtures.solid(4, 4, 0)))
        var big = GIFBuilder.Frame(width: 1, height: 1, pixels: [0])
        big.codeSize = 2
        f.frames.append(big)
        var bytes = [UInt8](f.encode())
        let lastDescriptor = try XCTUnwrap(bytes.lastIndex(of: 0x2C))
        bytes[lastDescriptor + 5] = 0xFF; bytes[lastDescriptor + 6] = 0xFF
        bytes[lastDescriptor + 7] = 0xFF; bytes[lastDescriptor + 8] = 0xFF
        XCTAssertThrowsError(try DWImage(data: Data(bytes))) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge)
        }
        // The limit is configurable.
        XCTAssertThrowsError(try DWImage(data: GIFFixtures.disposeKeep, maxPixelCount: 100)) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge)
        }
        XCTAssertNoThrow(try DWImage(data: GIFFixtures.disposeKeep, maxPixelCount: 120))
    }

    func testFrameCountAndTotalAreaBudgets() throws {
        var g = GIFBuilder(width: 1, height: 1, globalPalette: GIFFixtures.palette4)
        for i in 0..<10_001 {
            g.frames.append(.init(width: 1, height: 1, pixels: [UInt8(i & 3)], delayCentiseconds: 0))
        }
        XCTAssertThrowsError(try DWImage(data: g.encode())) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge)
        }
        let few = DWAnimatedImage.Limits(maxFrameCount: 3)
        XCTAssertThrowsError(try DWAnimatedImage(data: GIFFixtures.disposeBackground, limits: few))
        XCTAssertNoThrow(try DWAnimatedImage(data: GIFFixtures.disposePrevious, limits: .init(maxFrameCount: 4)))
        XCTAssertThrowsError(try DWAnimatedImage(data: GIFFixtures.disposeKeep, limits: .init(maxTotalPixelCount: 150)))
        {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge)
        }
    }

    // MARK: - Frame buffer

    func testBufferIsBoundedAndRandomAccessMatchesSequentialDecoding() throws {
        var g = GIFBuilder(width: 16, height: 12, globalPalette: GIFFixtures.palette8, loop: 0)
        for i in 0..<120 {
            let disposal = [0, 1, 2, 3][i % 4]
            let (x, y) = (i * 3 % 12, i * 5 % 9)
            g.frames.append(
                .init(
                    left: x, top: y, width: 5, height: 4, pixels: GIFFixtures.pattern(5, 4, colors: 8, seed: i),
                    disposal: i == 0 ? 1 : disposal, transparent: i % 3 == 0 ? 2 : nil))
        }
        let data = g.encode()
        let reference = try decodeAll(data).map(\.pixels)
        XCTAssertEqual(reference.count, 120)
        let animation = try DWAnimatedImage(data: data, bufferCount: 50)
        XCTAssertEqual(animation.bufferCount, 50)
        for _ in 0..<2 {
            for i in 0..<120 { XCTAssertEqual(animation.frame(at: i).pixels, reference[i], "frame \(i)") }
            XCTAssertLessThanOrEqual(animation.bufferedFrameCount, 50)
        }
        var rng = SplitMix(seed: 7)
        for _ in 0..<200 {
            let i = Int(rng.next() % 120)
            XCTAssertEqual(animation.frame(at: i).pixels, reference[i], "random access \(i)")
        }
        XCTAssertEqual(animation.bufferedFrameCount, 50)
        // Purged (a memory warning's answer): nothing held, and every frame decodes again the same, from any point.
        animation.purgeBuffer()
        XCTAssertEqual(animation.bufferedFrameCount, 0)
        for i in [77, 3, 119, 0] { XCTAssertEqual(animation.frame(at: i).pixels, reference[i], "after a purge \(i)") }
        XCTAssertGreaterThan(animation.bufferedFrameCount, 0)
        let unbuffered = try DWAnimatedImage(data: data, bufferCount: 0)
        for i in stride(from: 119, through: 0, by: -7) { XCTAssertEqual(unbuffered.frame(at: i).pixels, reference[i]) }
        XCTAssertEqual(unbuffered.bufferedFrameCount, 0)
        // The byte cap lowers the count: 16×12×4 = 768 bytes a frame.
        XCTAssertEqual(try DWAnimatedImage(data: data, maxBufferBytes: 768 * 10).bufferCount, 10)
    }

    // MARK: - Hostile input

    func testTruncatedAtEveryOffset() throws {
        for fixture in [GIFFixtures.disposePrevious, GIFFixtures.interlaced, GIFFixtures.localColorTables] {
            let full = try decodeAll(fixture).map(\.pixels)
            for cut in 0..<fixture.count {
                let data = fixture.prefix(cut)
                let image: DWImage
                do {
                    image = try DWImage(data: data)
                } catch {
                    XCTAssertEqual(error.code, .notAnImage, "cut \(cut)")
                    continue
                }
                XCTAssertGreaterThan(image.frameCount, 0)
                XCTAssertLessThanOrEqual(image.frameCount, full.count)
                if image.frameCount < full.count { XCTAssertTrue(image.isPartial, "cut \(cut)") }
                let frames = try XCTUnwrap(image.animatedImage())
                for i in 0..<frames.frameCount {
                    let frame = frames.frame(at: i)
                    guard frame.isComplete else {
                        // A later frame cut short: the last one, shown with the rows that arrived.
                        XCTAssertEqual(i, frames.frameCount - 1, "cut \(cut)")
                        XCTAssertGreaterThan(i, 0, "cut \(cut)")
                        XCTAssertTrue(image.isPartial, "cut \(cut)")
                        continue
                    }
                    XCTAssertEqual(frame.pixels, full[i], "complete frames decode as before (cut \(cut))")
                }
            }
        }
    }

    func testCorruptLZWGivesAnIncompleteFrameNotACrash() throws {
        var g = GIFBuilder(width: 8, height: 8, globalPalette: GIFFixtures.palette4, loop: 0)
        g.frames.append(.init(width: 8, height: 8, pixels: GIFFixtures.solid(8, 8, 1)))
        g.frames.append(.init(width: 8, height: 8, pixels: GIFFixtures.solid(8, 8, 2)))
        var bytes = [UInt8](g.encode())
        // Replace the second frame's LZW data (keeping the block structure) with codes that reference
        // entries that do not exist yet.
        let start = try XCTUnwrap(bytes.lastIndex(of: 0x2C)) + 10 + 1  // descriptor, code size byte
        let length = Int(bytes[start])
        for i in 1...length { bytes[start + i] = 0xFF }
        let animation = try DWAnimatedImage(data: Data(bytes))
        XCTAssertEqual(animation.frameCount, 2)
        XCTAssertTrue(animation.frame(at: 0).isComplete)
        let broken = animation.frame(at: 1)
        XCTAssertFalse(broken.isComplete)
        XCTAssertEqual(broken.pixels.count, 8 * 8 * 4)
    }

    func testGiflibWeakSpots() throws {
        func reject(_ bytes: [UInt8], _ why: String) {
            XCTAssertThrowsError(try DWImage(data: Data(bytes)), why) {
                XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage, why)
            }
            XCTAssertThrowsError(try DWAnimatedImage(data: Data(bytes)), why)
        }
        let header: [UInt8] = Array("GIF89a".utf8) + [4, 0, 4, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        reject(header + [0x3B], "no image: ImageCount 0")
        reject(
            Array("GIF89a".utf8) + [0, 0, 0, 0, 0, 0, 0, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x4C, 0x01, 0, 0x3B],
            "0×0 screen")
        for codeSize: UInt8 in [0, 12, 255] {  // 9…11: GIFWideCodeTests
            reject(header + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, codeSize, 1, 0, 0, 0x3B], "code size \(codeSize)")
        }
        // Extensions out of order, malformed, empty: a GCB after the image (applies to nothing), a 3-byte GCB,
        // a short NETSCAPE sub-block, an empty comment, an unknown application, then the frame.
        var g = GIFBuilder(width: 2, height: 2, globalPalette: GIFFixtures.palette4)
        g.frames.append(.init(width: 2, height: 2, pixels: [0, 1, 2, 3], delayCentiseconds: nil))
        let frame = g.encode(g.frames[0])
        var odd = header
        odd += [0x21, 0xF9, 0x03, 0x04, 0x05, 0x00, 0x00]  // GCB of 3 bytes: ignored
        odd += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x02, 0x01, 0x05, 0x00]  // short loop block
        odd += [0x21, 0xFE, 0x00]  // empty comment
        odd += [0x21, 0xFF, 0x03, 0x41, 0x42, 0x43, 0x00]  // 3-byte application id
        odd += [0x21, 0x01, 0x00]  // empty plain-text
        odd += [UInt8](frame)
        odd += [0x21, 0xF9, 0x04, 0x09, 0x30, 0x00, 0x00, 0x00]  // GCB after the last image
        odd += [UInt8](frame)  // the same frame again, with it
        odd += [0x21, 0xF9, 0x04, 0x09, 0x30, 0x00, 0x00, 0x00, 0x3B]  // dangling GCB, then the trailer
        let image = try DWImage(data: Data(odd))
        XCTAssertEqual(image.frameCount, 2)
        XCTAssertEqual(image.loopCount, 1, "the short NETSCAPE block is ignored")
        XCTAssertEqual(image.frameDelays, [0.1, 0.48])
        XCTAssertFalse(image.isPartial)
        // Garbage after a complete frame: a partial result, flagged.
        let tail = try DWImage(data: Data([UInt8](GIFFixtures.loops(0)).dropLast() + [0x99, 0x01]))
        XCTAssertTrue(tail.isPartial)
        XCTAssertEqual(tail.frameCount, 2)
        XCTAssertNotNil(tail.animatedImage()?.partialReason)
    }

    func testRandomBytesNeverTrap() {
        var rng = SplitMix(seed: 2026)
        let seeds = GIFFixtures.pillowComparable.map { [UInt8]($0.1) } + [[UInt8](GIFFixtures.outsideScreen)]
        for round in 0..<3000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(rng.next() % 200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let magic = Array("GIF89a".utf8)
                if bytes.count >= 13 {
                    bytes.replaceSubrange(0..<6, with: magic); bytes[6] = 9; bytes[7] = 0; bytes[8] = 9; bytes[9] = 0
                }
            } else {
                bytes = seeds[Int(rng.next() % UInt64(seeds.count))]
                for _ in 0..<(1 + Int(rng.next() % 6)) where !bytes.isEmpty {
                    bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
            guard let animation = try? DWAnimatedImage(data: Data(bytes), bufferCount: 2) else { continue }
            animation.forEachFrame { frame in
                XCTAssertEqual(frame.pixels.count, animation.width * animation.height * 4)
                return true
            }
            _ = animation.frame(at: animation.frameCount - 1)
            _ = animation.frame(at: 0)
        }
    }

    // MARK: - Helpers

    private let clear: [UInt8] = [0, 0, 0, 0]
    private func rgb(_ c: RGB) -> [UInt8] { [c.r, c.g, c.b, 255] }
    private func px(_ frame: DWImageFrame, _ x: Int, _ y: Int) -> [UInt8] {
        let p = frame.rgba(x: x, y: y)
        return [p.r, p.g, p.b, p.a]
    }

    private func decodeAll(_ data: Data) throws -> [DWImageFrame] {
        let animation = try DWAnimatedImage(data: data)
        var frames: [DWImageFrame] = []
        animation.forEachFrame {
            frames.append($0); return true
        }
        // The buffered, random-access path must agree with the sequential one.
        for frame in frames.reversed() { XCTAssertEqual(animation.frame(at: frame.index), frame) }
        return frames
    }
}
