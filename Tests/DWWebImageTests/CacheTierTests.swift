// Configuration.cacheTiers and willCache through the public API: memory → disk → S3 (moto with authentication on)
// filled and read in order with one origin request, each tier's hits and misses in the metrics, willCache refusing.
import DWLocking
import DWTestPeers
import DWTestServer
import DWWebImage
import Foundation
import XCTest

final class CacheTierTests: TemporaryRootTestCase {
    override var rootPrefix: String { "dwtiers" }

    private let png = SampleImages.png(width: 12, height: 7)

    /// A manager over a fresh cache under `root/<name>` whose tiers are its memory, its disk, then `s3`.
    private func tiered(
        _ name: String, s3: DWS3CacheTier, willCache: DWWillCacheHandler? = nil,
        metrics: DWLock<[DWDownloadMetrics]>? = nil
    ) -> (DWWebImageManager, DWWebImageCache) {
        let center = NotificationCenter()
        let cache = DWWebImageCache(rootDirectory: root.appendingPathComponent(name), notificationCenter: center)
        var configuration = DWWebImageManager.Configuration()
        configuration.retryCount = 0
        configuration.cacheTiers = [DWMemoryCacheTier(cache: cache), DWDiskCacheTier(cache: cache), s3]
        configuration.willCache = willCache
        let manager = DWWebImageManager(
            cache: cache, configuration: configuration, notificationCenter: center, removeExpiredAtStart: false)
        if let metrics { manager.metricsHandler = { record in metrics.withLock { $0.append(record) } } }
        return (manager, cache)
    }

    /// Fetches through the callback API and waits for its one completion.
    private func fetch(_ manager: DWWebImageManager, _ url: String) async throws -> DWImage {
        try await withCheckedThrowingContinuation { continuation in
            manager.downloadImage(withURL: url) { continuation.resume(with: $0) }
        }
    }

    private func lookups(_ pairs: [(String, Bool)]) -> [DWCacheTierLookup] {
        pairs.map { DWCacheTierLookup(tier: $0.0, hit: $0.1) }
    }

    func testThreeTiersAreFilledAndReadInOrderWithOneOriginRequest() async throws {
        let moto = try MotoS3(bucket: "images")
        defer { moto.stop() }
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        server.setRoute("/cat.png", .ok(png))
        let url = server.url("/cat.png")
        let s3 = DWS3CacheTier(
            location: try XCTUnwrap(DWS3Location("s3://images/tiers")),
            configuration: DWS3Configuration(
                endpoint: moto.endpoint, region: moto.region, accessKeyID: moto.accessKeyID,
                secretAccessKey: moto.secretAccessKey))
        let records = DWLock<[DWDownloadMetrics]>([])

        // A first manager: every tier misses, one origin request, then every tier holds the bytes.
        let (first, firstCache) = tiered("a", s3: s3, metrics: records)
        defer { first.invalidate() }
        let downloaded = try await fetch(first, url)
        XCTAssertEqual(downloaded.source, .network)
        XCTAssertEqual(downloaded.data, png)
        let missed = lookups([("memory", false), ("disk", false), ("s3", false)])
        XCTAssertEqual(downloaded.metrics?.tierLookups, missed)
        first.callbackQueue.sync {}
        XCTAssertEqual(records.value.last?.tierLookups, missed, "the metrics handler's record names the tiers asked")
        XCTAssertEqual(server.requestCount(path: "/cat.png"), 1)
        let memoryHeld = try await DWMemoryCacheTier(cache: firstCache).data(forKey: url)
        XCTAssertEqual(memoryHeld, png)
        let diskHeld = try await DWDiskCacheTier(cache: firstCache).data(forKey: url)
        XCTAssertEqual(diskHeld, png)
        let object = s3.objectLocation(forKey: url)
        XCTAssertEqual(object.key, "tiers/" + DWS3Configuration.sha256Hex(Data(url.utf8)))
        XCTAssertEqual(try moto.objects(prefix: "tiers/")[object.key], png, "in the bucket, signed by SigV4")

        // Again: the memory tier answers.
        let remembered = try await fetch(first, url)
        XCTAssertEqual(remembered.source, .memory)
        XCTAssertEqual(remembered.metrics?.tierLookups, lookups([("memory", true)]))

        // A second cache over nothing local: memory and disk miss, S3 answers and fills both.
        let (second, secondCache) = tiered("b", s3: s3, metrics: records)
        defer { second.invalidate() }
        let fromS3 = try await fetch(second, url)
        XCTAssertEqual(fromS3.source, .disk, "a hit below memory reports .disk, as SDWebImage's additional caches do")
        XCTAssertEqual(fromS3.data, png)
        let s3Hit = lookups([("memory", false), ("disk", false), ("s3", true)])
        XCTAssertEqual(fromS3.metrics?.tierLookups, s3Hit)
        second.callbackQueue.sync {}
        XCTAssertEqual(records.value.last?.tierLookups, s3Hit)
        let filledMemory = try await DWMemoryCacheTier(cache: secondCache).data(forKey: url)
        XCTAssertEqual(filledMemory, png, "filled from S3")
        let filledDisk = try await DWDiskCacheTier(cache: secondCache).data(forKey: url)
        XCTAssertEqual(filledDisk, png, "filled from S3")

        // A third over the second's disk only (a fresh memory): the disk answers and fills memory.
        let center = NotificationCenter()
        let thirdCache = DWWebImageCache(rootDirectory: root.appendingPathComponent("b"), notificationCenter: center)
        var configuration = DWWebImageManager.Configuration()
        configuration.cacheTiers = [DWMemoryCacheTier(cache: thirdCache), DWDiskCacheTier(cache: thirdCache), s3]
        let third = DWWebImageManager(
            cache: thirdCache, configuration: configuration, notificationCenter: center, removeExpiredAtStart: false)
        defer { third.invalidate() }
        let fromDisk = try await third.image(withURL: url)
        XCTAssertEqual(fromDisk.source, .disk)
        XCTAssertEqual(fromDisk.metrics?.tierLookups, lookups([("memory", false), ("disk", true)]))
        let thirdMemory = try await DWMemoryCacheTier(cache: thirdCache).data(forKey: url)
        XCTAssertEqual(thirdMemory, png)
        let againFromMemory = try await third.image(withURL: url)
        XCTAssertEqual(againFromMemory.metrics?.tierLookups, lookups([("memory", true)]))

        XCTAssertEqual(server.requestCount(path: "/cat.png"), 1, "one origin request for all of it")
    }

    func testAStoreThatFailsIsLoggedAndTheImageStillDeliveredAndAFailingReadIsAMiss() async throws {
        let moto = try MotoS3(bucket: "images")
        defer { moto.stop() }
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        server.setRoute("/dog.png", .ok(png))
        // The wrong secret: moto answers 403 to every read and write.
        let refused = DWS3CacheTier(
            location: try XCTUnwrap(DWS3Location("s3://images/tiers")),
            configuration: DWS3Configuration(
                endpoint: moto.endpoint, region: moto.region, accessKeyID: moto.accessKeyID,
                secretAccessKey: "not-the-secret"))
        let (manager, _) = tiered("c", s3: refused)
        defer { manager.invalidate() }
        let image = try await fetch(manager, server.url("/dog.png"))
        XCTAssertEqual(image.data, png)
        XCTAssertEqual(image.metrics?.tierLookups, lookups([("memory", false), ("disk", false), ("s3", false)]))
        XCTAssertTrue(try moto.objects(prefix: "tiers/").isEmpty)
    }

    func testWillCacheRefusingAnImageKeepsItOutOfEveryTier() async throws {
        let moto = try MotoS3(bucket: "images")
        defer { moto.stop() }
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        server.setRoute("/secret.png", .ok(png))
        server.setRoute("/public.png", .ok(png))
        let s3 = DWS3CacheTier(
            location: try XCTUnwrap(DWS3Location("s3://images/tiers")),
            configuration: DWS3Configuration(
                endpoint: moto.endpoint, region: moto.region, accessKeyID: moto.accessKeyID,
                secretAccessKey: moto.secretAccessKey))
        let calls = DWLock<[String]>([])
        let (manager, cache) = tiered("d", s3: s3) { data, key, tier in
            calls.withLock { $0.append("\(key.hasSuffix("secret.png") ? "secret" : "public") \(tier)") }
            if key.hasSuffix("secret.png") { return nil }  // never stored anywhere
            return tier == "s3" ? nil : data  // public: local tiers only
        }
        defer { manager.invalidate() }
        let secret = server.url("/secret.png")
        let refusedFirst = try await fetch(manager, secret)
        XCTAssertEqual(refusedFirst.data, png, "a refused image is still delivered")
        XCTAssertEqual(calls.value, ["secret memory", "secret disk", "secret s3"], "once per tier, in order")
        let inMemory = try await DWMemoryCacheTier(cache: cache).data(forKey: secret)
        XCTAssertNil(inMemory)
        let onDisk = try await DWDiskCacheTier(cache: cache).data(forKey: secret)
        XCTAssertNil(onDisk)
        XCTAssertNil(cache.objCache(forKey: secret))
        let refusedAgain = try await fetch(manager, secret)
        XCTAssertEqual(refusedAgain.source, .network, "nothing cached: asked again")
        XCTAssertEqual(server.requestCount(path: "/secret.png"), 2)

        let open = server.url("/public.png")
        let openFirst = try await fetch(manager, open)
        XCTAssertEqual(openFirst.source, .network)
        let publicDisk = try await DWDiskCacheTier(cache: cache).data(forKey: open)
        XCTAssertEqual(publicDisk, png)
        XCTAssertTrue(try moto.objects(prefix: "tiers/").isEmpty, "refused for s3 only")
        let openAgain = try await fetch(manager, open)
        XCTAssertEqual(openAgain.source, .memory)
    }

    /// willCache without cacheTiers: the manager's own cache becomes the tiers memory → disk, and a refusal keeps
    /// the image out of both.
    func testWillCacheAloneMakesTheManagersCacheTwoTiers() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        server.setRoute("/a.png", .ok(png))
        server.setRoute("/b.png", .ok(png))
        let center = NotificationCenter()
        let cache = DWWebImageCache(rootDirectory: root, notificationCenter: center)
        var configuration = DWWebImageManager.Configuration()
        configuration.willCache = { data, key, _ in key.hasSuffix("/a.png") ? nil : data }
        let manager = DWWebImageManager(
            cache: cache, configuration: configuration, notificationCenter: center, removeExpiredAtStart: false)
        defer { manager.invalidate() }
        let (a, b) = (server.url("/a.png"), server.url("/b.png"))
        let refusedA = try await fetch(manager, a)
        XCTAssertEqual(refusedA.metrics?.tierLookups, lookups([("memory", false), ("disk", false)]))
        XCTAssertNil(cache.objCache(forKey: a), "refused: neither in memory nor on disk")
        _ = try await fetch(manager, b)
        XCTAssertEqual(cache.objCache(forKey: b), png)
        let center2 = NotificationCenter()
        let other = DWWebImageCache(rootDirectory: root, notificationCenter: center2)
        XCTAssertEqual(other.objCache(forKey: b), png, "on disk")
    }

    /// An app's own tier (a dictionary, slow to answer): read in order with the built-ins, and a request cancelled
    /// while the tiers are read is answered 10007 once, with no request to the origin.
    func testAnAppsOwnTierAndCancellingDuringTheLookup() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        server.setRoute("/e.png", .ok(png))
        let url = server.url("/e.png")
        let own = DictionaryTier(delay: 0)
        own.entries.withLock { $0[url] = png }
        let center = NotificationCenter()
        let cache = DWWebImageCache(rootDirectory: root, notificationCenter: center)
        var configuration = DWWebImageManager.Configuration()
        configuration.cacheTiers = [DWMemoryCacheTier(cache: cache), own]
        let manager = DWWebImageManager(
            cache: cache, configuration: configuration, notificationCenter: center, removeExpiredAtStart: false)
        defer { manager.invalidate() }
        let image = try await fetch(manager, url)
        XCTAssertEqual(image.source, .disk)
        XCTAssertEqual(image.metrics?.tierLookups, lookups([("memory", false), ("dictionary", true)]))
        let filled = try await DWMemoryCacheTier(cache: cache).data(forKey: url)
        XCTAssertEqual(filled, png, "the memory tier filled from the app's tier")

        let slow = DictionaryTier(delay: 0.5)
        var slowConfiguration = DWWebImageManager.Configuration()
        slowConfiguration.cacheTiers = [slow]
        let slowManager = DWWebImageManager(
            cache: cache, configuration: slowConfiguration, notificationCenter: center, removeExpiredAtStart: false)
        defer { slowManager.invalidate() }
        let box = ResultBox()
        let token = slowManager.downloadImage(withURL: url) { box.set($0) }
        token.cancel()
        guard case .failure(let error) = box.wait(timeout: 5) else { return XCTFail("cancelled: a failure") }
        XCTAssertEqual(error.code, .cancelled)
        usleep(800_000)  // past the slow read: nothing more is delivered and no download starts
        XCTAssertTrue(box.waitFor(count: 1, timeout: 0.1))
        XCTAssertFalse(box.waitFor(count: 2, timeout: 0.1), "one completion")
        XCTAssertEqual(server.requestCount(path: "/e.png"), 0)
    }
}

/// A tier an app writes: a dictionary behind a lock, answering after `delay` seconds.
private final class DictionaryTier: DWCacheTier {
    let entries = DWLock<[String: Data]>([:])
    let delay: TimeInterval
    init(delay: TimeInterval) { self.delay = delay }
    var name: String { "dictionary" }
    func data(forKey key: String) async throws(DWWebImageError) -> Data? {
        if delay > 0 { try? await Task.sleep(nanoseconds: UInt64(delay * 1e9)) }
        return entries.withLock { $0[key] }
    }
    func store(_ data: Data, forKey key: String) async throws(DWWebImageError) { entries.withLock { $0[key] = data } }
    func removeData(forKey key: String) async throws(DWWebImageError) { entries.withLock { $0[key] = nil } }
}
