// The animation player keeps the frames of an image the manager delivered in the cache's decoded tier: the second
// play (and a second player) show the same frames without decoding them again. The manual clock drives the plays.
import DWLocking
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class DecodedTierPlayerTests: XCTestCase {
    func testASecondPlayShowsTheKeptFramesWithoutDecoding() throws {
        let h = try Harness()
        defer { h.close() }
        var g = GIFBuilder(width: 4, height: 4, globalPalette: GIFFixtures.palette4, loop: 2)
        for i in 0..<3 {
            g.frames.append(
                .init(width: 4, height: 4, pixels: GIFFixtures.solid(4, 4, UInt8(i)), delayCentiseconds: 10))
        }
        h.server.setRoute("/a.gif", .ok(g.encode()))
        let url = h.server.url("/a.gif")
        let image = try h.fetch(url).get()

        func play() throws -> [[UInt8]] {
            let clock = ManualClock()
            let player = try XCTUnwrap(
                DWAnimatedImagePlayer(
                    image: image, loopMode: .file, queue: DispatchQueue(label: "tier-player"), clock: clock))
            let shown = DWLock<[[UInt8]]>([])
            player.play(frameHandler: { frame in shown.withLock { $0.append(frame.pixels) } })
            let settle = {
                player.animationQueue.sync {}; player.queue.sync {}
            }
            settle()
            clock.advance(to: 101) { settle() }
            return shown.value
        }
        let first = try play()
        XCTAssertEqual(first.count, 6, "two plays of three frames")
        XCTAssertEqual(Array(first[3...]), Array(first[..<3]), "the second play shows the same frames")
        var stats = h.cache.decodedStatistics
        XCTAssertEqual([stats.misses, stats.hits, stats.entryCount], [3, 3, 3], "each frame decoded once")
        XCTAssertEqual(stats.totalCost, 3 * 4 * 4 * 4)
        XCTAssertNotNil(h.cache.decodedBitmap(forKey: DWAnimatedImagePlayer.frameKey(url, 1)))

        XCTAssertEqual(try play(), first, "another player of the image")
        stats = h.cache.decodedStatistics
        XCTAssertEqual([stats.misses, stats.hits], [3, 9], "and it decodes nothing")
    }
}
