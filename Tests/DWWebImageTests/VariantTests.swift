// Variants: processed images cached beside their original; one download and one transform however many ask.
import DWLocking
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

/// A real processor over real images: the input's size halved (a new PNG of that size), counting its calls.
private struct HalvingProcessor: DWImageProcessor {
    let tag: String
    let calls: Counter
    var identifier: String { "half(\(tag))" }

    func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        calls.next()
        let width = max(1, image.pixelWidth / 2), height = max(1, image.pixelHeight / 2)
        return try DWImage(data: SampleImages.png(width: width, height: height, seed: UInt8(tag.utf8.count)))
    }
}

/// A processor that refuses its input.
private struct RefusingProcessor: DWImageProcessor {
    let calls: Counter
    var identifier: String { "refuse" }

    func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        calls.next()
        throw DWWebImageError(.notAnImage, "refused by the test processor")
    }
}

final class VariantTests: XCTestCase {
    private let source = SampleImages.png(width: 40, height: 20, seed: 7)

    private func requests(_ h: Harness, _ path: String) -> Int { h.server.requestLog.filter { $0.path == path }.count }

    /// A download too big for the engine thread ends on the work queue; its variant is made right there, not
    /// queued to the work queue again (a hop for nothing).
    func testAVariantOfABigDownloadIsMadeWhereItEndedWithoutAnotherHop() async throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/big.png", .ok(SampleImages.png(approximateSize: 400_000, seed: 5)))  // 8×8, padded
        let (url, manager) = (h.server.url("/big.png"), h.manager)
        let processors = [HalvingProcessor(tag: "h", calls: Counter())] as [any DWImageProcessor]
        let path = try await DWHopTrace.record {
            let variant = try await manager.image(withURL: url, options: .processors(processors))
            XCTAssertEqual([variant.pixelWidth, variant.pixelHeight], [4, 4])
        }
        let route = path.joined(separator: " → ")
        XCTAssertTrue(path.contains("work queue"), "the body is over the engine thread's limit: \(route)")
        XCTAssertFalse(path.contains("transform worker"), "made where the download ended: \(route)")
    }

    func testSecondVariantOfACachedSourceMakesNoRequest() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/a.png", .ok(source))
        let url = h.server.url("/a.png")
        let calls = Counter()
        let small = [HalvingProcessor(tag: "a", calls: calls)] as [any DWImageProcessor]
        let smaller =
            [HalvingProcessor(tag: "a", calls: calls), HalvingProcessor(tag: "b", calls: calls)]
            as [any DWImageProcessor]

        let first = try h.fetch(url, options: .processors(small)).get()
        XCTAssertEqual(requests(h, "/a.png"), 1)
        XCTAssertEqual([first.pixelWidth, first.pixelHeight], [20, 10])
        XCTAssertEqual(first.source, .network)

        let second = try h.fetch(url, options: .processors(smaller)).get()
        XCTAssertEqual(requests(h, "/a.png"), 1, "the original is cached: no request")
        XCTAssertEqual([second.pixelWidth, second.pixelHeight], [10, 5])
        XCTAssertEqual(second.source, .memory, "made from the original in memory")
        let original = try h.fetch(url).get()
        XCTAssertEqual(original.data, source, "the original stays cached under its URL")
        XCTAssertEqual(original.source, .memory)

        // Another process (fresh memory): both variants are on disk under their own keys, a third is made from
        // the original on disk; none makes a request.
        _ = h.cache.waitForPendingWrites()
        for chain in [small, smaller] {
            XCTAssertNotNil(h.cache.objCache(forKey: DWImageProcessors.cacheKey(url: url, processors: chain)))
        }
        let (other, _) = h.anotherManager()
        defer { other.invalidate() }
        let before = calls.value
        let fromDisk = try Harness.fetch(other, url, options: .processors(smaller))
        XCTAssertEqual(fromDisk.source, .disk)
        XCTAssertEqual(fromDisk.pixelWidth, 10)
        XCTAssertEqual(calls.value, before, "a cached variant is not made again")
        let third = try Harness.fetch(other, url, options: .processors([HalvingProcessor(tag: "c", calls: calls)]))
        XCTAssertEqual(third.source, .disk, "made from the original on disk")
        XCTAssertEqual(calls.value, before + 1)
        XCTAssertEqual(requests(h, "/a.png"), 1)
    }

    func testSameVariantTwiceMakesNoRequestAndOneTransform() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/b.png", .ok(source))
        let url = h.server.url("/b.png")
        let calls = Counter()
        let chain = [HalvingProcessor(tag: "x", calls: calls)] as [any DWImageProcessor]
        let first = try h.fetch(url, options: .processors(chain)).get()
        let second = try h.fetch(url, options: .processors(chain)).get()
        XCTAssertEqual(requests(h, "/b.png"), 1)
        XCTAssertEqual(calls.value, 1)
        XCTAssertEqual(second.source, .memory)
        XCTAssertEqual(first.data, second.data)
    }

    func testTwentyConcurrentIdenticalVariantRequestsMakeOneRequestAndOneTransform() throws {
        let h = try Harness()
        defer { h.close() }
        let gate = Gate()
        defer { gate.open(2) }
        gate.hold(h.server, "/c.png", .ok(source))
        let url = h.server.url("/c.png")
        let calls = Counter()
        let box = ResultBox()
        for _ in 0..<20 {
            h.manager.downloadImage(withURL: url, options: .processors([HalvingProcessor(tag: "y", calls: calls)])) {
                box.set($0)
            }
        }
        XCTAssertTrue(eventually(timeout: 10) { h.manager.waiterCount(forURL: url) == 20 }, "all joined one download")
        gate.open()
        XCTAssertTrue(box.waitFor(count: 20, timeout: 10))
        XCTAssertEqual(box.all.compactMap { $0.value?.pixelWidth }, Array(repeating: 20, count: 20))
        XCTAssertEqual(requests(h, "/c.png"), 1)
        XCTAssertEqual(calls.value, 1)
    }

    func testDifferentVariantsAndTheOriginalShareOneDownload() throws {
        let h = try Harness()
        defer { h.close() }
        let gate = Gate()
        defer { gate.open(2) }
        gate.hold(h.server, "/d.png", .ok(source))
        let url = h.server.url("/d.png")
        let calls = Counter()
        let finishes = Recorder<DWImage>()
        let observer = h.center.addObserver(forName: .DWWebImageDownloadFinish, object: nil, queue: nil) { note in
            if let image = note.userInfo?[DWWebImageNotificationKey.image] as? DWImage { finishes.append(image) }
        }
        defer { h.center.removeObserver(observer) }
        let one = ResultBox(), two = ResultBox(), plain = ResultBox()
        for _ in 0..<5 {
            h.manager.downloadImage(withURL: url, options: .processors([HalvingProcessor(tag: "1", calls: calls)])) {
                one.set($0)
            }
            h.manager.downloadImage(
                withURL: url,
                options: .processors([
                    HalvingProcessor(tag: "1", calls: calls),
                    HalvingProcessor(tag: "2", calls: calls)
                ])
            ) {
                two.set($0)
            }
        }
        h.manager.downloadImage(withURL: url) { plain.set($0) }
        XCTAssertTrue(eventually(timeout: 10) { h.manager.waiterCount(forURL: url) == 11 })
        gate.open()
        XCTAssertTrue(one.waitFor(count: 5, timeout: 10) && two.waitFor(count: 5, timeout: 10))
        XCTAssertEqual(try plain.wait(timeout: 10)?.get().data, source)
        XCTAssertEqual(one.all.compactMap { $0.value?.pixelWidth }, Array(repeating: 20, count: 5))
        XCTAssertEqual(two.all.compactMap { $0.value?.pixelWidth }, Array(repeating: 10, count: 5))
        XCTAssertEqual(requests(h, "/d.png"), 1)
        XCTAssertEqual(calls.value, 3, "one transform for the first chain, two steps for the second")
        h.drainCallbacks()
        XCTAssertEqual(finishes.values.map(\.data), [source], "one Finish, carrying the original")
    }

    func testAThrowingProcessorFailsItsCallersAndTheOriginalStaysCached() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/e.png", .ok(source))
        let url = h.server.url("/e.png")
        let calls = Counter()
        let result = h.fetch(url, options: .processors([RefusingProcessor(calls: calls)]))
        XCTAssertEqual(result.error?.code, .notAnImage)
        XCTAssertEqual(result.error?.message, "refused by the test processor")
        XCTAssertEqual(result.error?.url, url)
        let original = try h.fetch(url).get()
        XCTAssertEqual(original.source, .memory)
        XCTAssertEqual(original.data, source)
        _ = h.cache.waitForPendingWrites()
        XCTAssertEqual(h.cache.objCache(forKey: url), source, "on disk too")
        XCTAssertNil(h.cache.objCache(forKey: url + "@refuse"), "no variant stored")
        XCTAssertEqual(requests(h, "/e.png"), 1)
        XCTAssertEqual(calls.value, 1)
    }

    func testOfflineVariantOfAnUncachedURLIsNotInCache() throws {
        let h = try Harness()
        defer { h.close() }
        let result = h.fetch(
            h.server.url("/f.png"),
            options: [.fromCacheOnly, .processors([HalvingProcessor(tag: "z", calls: Counter())])])
        XCTAssertEqual(result.error?.code, .notInCache)
        XCTAssertTrue(h.server.requestLog.isEmpty)
    }
}
