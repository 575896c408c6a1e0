// GIFSummary against giflib: wherever the Swift walk accepts a GIF, giflib's index reports the same frame count,
// loop count and duration and no partial file; and a DWImage of such a GIF opens giflib only when asked for frames.
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class GIFSummaryTests: XCTestCase {
    /// Every GIF the tests build or keep as files, whole.
    private func corpus() throws -> [(String, Data)] {
        var files = GIFFixtures.pillowComparable
        files += [
            ("loops nil", GIFFixtures.loops(nil)), ("loops 0", GIFFixtures.loops(0)), ("loops 3", GIFFixtures.loops(3)),
            ("transparency", GIFFixtures.transparency), ("outsideScreen", GIFFixtures.outsideScreen),
            ("noColorMap", GIFFixtures.noColorMap), ("indexOutOfRange", GIFFixtures.indexOutOfRange)
        ]
        let folder = SourceTree.formatCorpus
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where name.hasSuffix(".gif") {
            files.append((name, try Data(contentsOf: folder.appendingPathComponent(name))))
        }
        return files
    }

    /// Checks `data` both ways; returns whether the Swift walk accepted it.
    @discardableResult
    private func compare(_ data: Data, _ label: String, limits: DWAnimatedImage.Limits = .default) -> Bool {
        guard let summary = data.withUnsafeBytes({ GIFSummary.walk($0, limits: limits) }) else { return false }
        guard let index = try? GIFIndex.scan(data, limits: limits) else {
            XCTFail("\(label): the Swift walk accepts a GIF giflib refuses")
            return true
        }
        XCTAssertEqual(summary.frameCount, index.frames.count, label)
        XCTAssertEqual(summary.loopCount, index.loopCount, label)
        XCTAssertEqual(summary.netscapeLoopCount, index.netscapeLoopCount, label)
        XCTAssertEqual(summary.duration, index.duration, label)
        XCTAssertFalse(index.isPartial, "\(label): the Swift walk accepts a file giflib reads as partial")
        return true
    }

    func testSummaryEqualsGiflibsIndexOnEveryFixture() throws {
        var accepted = 0
        for (name, data) in try corpus() where compare(data, name) { accepted += 1 }
        XCTAssertGreaterThanOrEqual(accepted, 12, "the plain fixtures take the Swift walk")
        // Damaged fixtures are giflib's to judge.
        for name in ["gif-tail-garbage", "gif-tail-missing", "gif-later-frame-cut", "gif-tail-bad-code-size"] {
            let data = try XCTUnwrap(try corpus().first { $0.0 == "\(name).gif" }?.1, name)
            XCTAssertNil(data.withUnsafeBytes { GIFSummary.walk($0, limits: .default) }, name)
        }
    }

    func testEveryTruncationAndByteFlipAgreesWithGiflib() {
        for fixture in [GIFFixtures.disposePrevious, GIFFixtures.localColorTables, GIFFixtures.loops(3)] {
            for cut in 0...fixture.count { compare(fixture.prefix(cut), "cut \(cut)") }
            // Every byte replaced by values that move record boundaries, sizes, code sizes, labels and loops.
            for offset in 0..<fixture.count {
                for value: UInt8 in [0x00, 0x01, 0x03, 0x09, 0x21, 0x2C, 0x3B, 0x80, 0xF9, 0xFF] {
                    var data = fixture
                    data[offset] = value
                    compare(data, "byte \(offset) = \(value)")
                }
            }
        }
    }

    func testLimitsAreGiflibsToEnforce() {
        let data = GIFFixtures.disposePrevious
        let tight = [
            DWAnimatedImage.Limits(maxPixelCount: 3), DWAnimatedImage.Limits(maxFrameCount: 1),
            DWAnimatedImage.Limits(maxTotalPixelCount: 20)
        ]
        for limits in tight {
            XCTAssertNil(data.withUnsafeBytes { GIFSummary.walk($0, limits: limits) }, "\(limits)")
        }
    }

    func testAPlainGIFIsIndexedOnlyWhenItsFramesAreAskedFor() throws {
        let data = GIFFixtures.delays
        let image = try DWImage(data: data)
        let gif = try XCTUnwrap(image.gif)
        XCTAssertFalse(gif.isIndexed, "frame count, loops and duration come without giflib")
        let index = try GIFIndex.scan(data, limits: .default)
        XCTAssertEqual(image.frameCount, index.frames.count)
        XCTAssertEqual(image.loopCount, index.loopCount)
        XCTAssertEqual(image.duration, index.duration)
        XCTAssertFalse(image.isPartial)
        XCTAssertFalse(gif.isIndexed)
        XCTAssertEqual(image.frameDelays, index.frames.map(\.delay))
        XCTAssertTrue(gif.isIndexed, "the frames' delays need giflib's index")
        XCTAssertEqual(image.animatedImage()?.frameCount, index.frames.count)

        // A damaged file is judged by giflib at once.
        let cut = try DWImage(data: GIFFixtures.disposePrevious.dropLast(1))
        XCTAssertTrue(try XCTUnwrap(cut.gif).isIndexed)
        XCTAssertTrue(cut.isPartial)
    }
}
