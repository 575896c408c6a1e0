// The tier path's revalidation and entry files through the public API: a stale entry in the memory, disk or S3
// tier (moto with authentication on) revalidated with one conditional request shared by concurrent callers, a 304
// refreshing and promoting it, a 200 replacing it everywhere, nginx's ETag and Last-Modified, and lying or failing
// origins (the in-process fault server) never leaving a wrong entry.
import DWLocking
import DWTestPeers
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class TierRevalidationTests: TemporaryRootTestCase {
    override var rootPrefix: String { "dwtierreval" }

    private let v1 = SampleImages.png(width: 20, height: 10, seed: 1)
    private let v2 = SampleImages.png(width: 30, height: 15, seed: 2)

    /// A manager over a new cache at `root/<name>` (body-only entries), whose tiers `tiers` makes from that cache.
    private func manager(
        _ name: String, expiration: TimeInterval = 3600, caFile: String? = nil,
        willCache: DWWillCacheHandler? = nil,
        tiers: (DWWebImageCache) -> [any DWCacheTier] = { [DWMemoryCacheTier(cache: $0), DWDiskCacheTier(cache: $0)] }
    ) -> (DWWebImageManager, DWWebImageCache) {
        let center = NotificationCenter()
        var cacheConfiguration = DWWebImageCache.Configuration(rootDirectory: root.appendingPathComponent(name))
        cacheConfiguration.bodyOnlyEntries = true
        cacheConfiguration.expirationTime = expiration
        let cache = DWWebImageCache(configuration: cacheConfiguration, notificationCenter: center)
        var configuration = DWWebImageManager.Configuration()
        configuration.retryCount = 0
        configuration.cacheTiers = tiers(cache)
        configuration.willCache = willCache
        configuration.tls.caFile = caFile
        let manager = DWWebImageManager(
            cache: cache, configuration: configuration, notificationCenter: center, removeExpiredAtStart: false)
        return (manager, cache)
    }

    private static func fetch(
        _ manager: DWWebImageManager, _ url: String, options: DWWebImageOptions = []
    ) async -> Result<DWImage, DWWebImageError> {
        await withCheckedContinuation { continuation in
            manager.downloadImage(withURL: url, options: options) { continuation.resume(returning: $0) }
        }
    }

    /// The origin of `v1` under ETag "e1": a 304 to `If-None-Match: "e1"`, else the bytes.
    private func serveV1(_ server: LoopbackHTTPServer, _ path: String, delay: TimeInterval = 0) {
        let v1 = v1
        server.setHandler(path) { request in
            let answer: Route =
                request.header("If-None-Match") == "\"e1\""
                ? .status(304, headers: [("ETag", "\"e1\"")])
                : .status(200, body: v1, headers: [("ETag", "\"e1\""), ("Content-Type", "image/png")])
            return delay > 0 ? .delayed(delay, answer) : answer
        }
    }

    private func lookups(_ pairs: [(String, Bool)]) -> [DWCacheTierLookup] {
        pairs.map { DWCacheTierLookup(tier: $0.0, hit: $0.1) }
    }

    func testAStaleDiskEntryIsRevalidatedOnceForConcurrentCallersAndA304RefreshesAndPromotesIt() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        let url = server.url("/a.png")
        serveV1(server, "/a.png")
        let (first, _) = manager("shared")
        let downloaded = try await Self.fetch(first, url).get()
        first.invalidate()
        XCTAssertEqual(downloaded.source, .network)
        let written = try XCTUnwrap(downloaded.entryFile, "the disk tier's entry file, as the default path gives")
        XCTAssertEqual(written.size, v1.count)

        // A new process over the same disk, whose entries are stale at once: the disk tier's entry is revalidated
        // with one conditional request, whichever of four concurrent callers asks first.
        serveV1(server, "/a.png", delay: 0.5)
        let (second, cache) = manager("shared", expiration: 0)
        defer { second.invalidate() }
        let storedBefore = try XCTUnwrap(cache.entryMetadata(forKey: url)?.storedAt)
        try await Task.sleep(nanoseconds: 20_000_000)
        let results = await withTaskGroup(of: Result<DWImage, DWWebImageError>.self) { group in
            for _ in 0..<4 { group.addTask { await Self.fetch(second, url) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(server.requestCount(path: "/a.png"), 2, "one download, then one conditional request")
        XCTAssertEqual(server.requestLog.last?.header("If-None-Match"), "\"e1\"")
        for result in results {
            let image = try result.get()
            XCTAssertEqual(image.source, .revalidated)
            XCTAssertEqual(image.data, v1)
            XCTAssertEqual(image.metrics?.httpStatus, 304)
            XCTAssertNotNil(image.entryFile, "the refreshed disk entry's file")
        }
        let refreshed = try XCTUnwrap(cache.entryMetadata(forKey: url))
        XCTAssertGreaterThan(refreshed.storedAt, storedBefore, "the 304 renewed the disk entry")
        XCTAssertEqual(refreshed.etag, "\"e1\"")

        // Fresh again: the memory tier, filled by the 304, answers without a request (and has no entry file).
        cache.expirationTime = 3600
        let remembered = try await Self.fetch(second, url).get()
        XCTAssertEqual(remembered.source, .memory)
        XCTAssertEqual(remembered.metrics?.tierLookups, lookups([("memory", true)]))
        XCTAssertNil(remembered.entryFile)
        XCTAssertEqual(server.requestCount(path: "/a.png"), 2)
    }

    func testA200ToTheRevalidationReplacesTheEntryInEveryTierThroughWillCache() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        let url = server.url("/b.png")
        serveV1(server, "/b.png")
        let stores = DWLock<[String]>([])
        let (manager, cache) = manager(
            "b",
            willCache: { data, _, tier in
                stores.withLock { $0.append(tier) }
                return data
            })
        defer { manager.invalidate() }
        let got1 = try await Self.fetch(manager, url).get()
        XCTAssertEqual(got1.data, v1)
        cache.expirationTime = 0
        let v2 = v2
        server.setHandler("/b.png") { request in
            request.header("If-None-Match") == "\"e1\""
                ? .status(200, body: v2, headers: [("ETag", "\"e2\"")]) : .status(400)
        }
        let replaced = try await Self.fetch(manager, url).get()
        XCTAssertEqual(replaced.source, .network)
        XCTAssertEqual(replaced.data, v2)
        XCTAssertEqual(replaced.metrics?.tierLookups, lookups([("memory", true)]), "the stale entry was memory's")
        XCTAssertEqual(stores.value, ["memory", "disk", "memory", "disk"], "stored into every tier, twice")
        let memory = try await DWMemoryCacheTier(cache: cache).data(forKey: url)
        XCTAssertEqual(memory, v2)
        XCTAssertEqual(cache.entryMetadata(forKey: url)?.etag, "\"e2\"")
        cache.expirationTime = 3600
        let disk = try await DWDiskCacheTier(cache: cache).data(forKey: url)
        XCTAssertEqual(disk, v2)
    }

    func testAStaleMemoryEntryIsRevalidatedWithLastModified() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        let url = server.url("/c.png")
        let stamp = "Tue, 03 Nov 2026 10:00:00 GMT"
        let v1 = v1
        server.setHandler("/c.png") { request in
            request.header("If-Modified-Since") == stamp
                ? .status(304) : .status(200, body: v1, headers: [("Last-Modified", stamp)])
        }
        let (manager, cache) = manager("c", tiers: { [DWMemoryCacheTier(cache: $0)] })
        defer { manager.invalidate() }
        let got2 = try await Self.fetch(manager, url).get()
        XCTAssertEqual(got2.source, .network)
        let got3 = try await Self.fetch(manager, url).get()
        XCTAssertEqual(got3.source, .memory, "fresh")
        cache.expirationTime = 0
        let image = try await Self.fetch(manager, url).get()
        XCTAssertEqual(image.source, .revalidated)
        XCTAssertEqual(image.data, v1)
        XCTAssertEqual(server.requestCount(path: "/c.png"), 2)
        XCTAssertEqual(server.requestLog.last?.header("If-Modified-Since"), stamp)
        XCTAssertNil(image.entryFile, "no disk tier, no entry file")
    }

    func testAStaleS3EntryIsRevalidatedAndRefreshedInTheBucket() async throws {
        let moto = try MotoS3(bucket: "images")
        defer { moto.stop() }
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        let url = server.url("/d.png")
        serveV1(server, "/d.png")
        let s3 = DWS3CacheTier(
            location: try XCTUnwrap(DWS3Location("s3://images/tiers")),
            configuration: DWS3Configuration(
                endpoint: moto.endpoint, region: moto.region, accessKeyID: moto.accessKeyID,
                secretAccessKey: moto.secretAccessKey))
        let (first, _) = manager("s3a", tiers: { [DWMemoryCacheTier(cache: $0), s3] })
        let got4 = try await Self.fetch(first, url).get()
        XCTAssertEqual(got4.source, .network)
        first.invalidate()
        let object = s3.objectLocation(forKey: url).key
        XCTAssertEqual(try moto.objects(prefix: "tiers/")[object], v1, "the bytes alone, validators in metadata")
        let got5 = try await s3.entry(forKey: url)?.metadata?.storedAt
        let storedBefore = try XCTUnwrap(got5)
        let got6 = try await s3.entry(forKey: url)?.metadata?.etag
        XCTAssertEqual(got6, "\"e1\"")

        // Another process whose memory is empty and whose entries are stale: S3's entry is revalidated.
        let (second, secondCache) = manager("s3b", expiration: 0, tiers: { [DWMemoryCacheTier(cache: $0), s3] })
        defer { second.invalidate() }
        let image = try await Self.fetch(second, url).get()
        XCTAssertEqual(image.source, .revalidated)
        XCTAssertEqual(image.metrics?.tierLookups, lookups([("memory", false), ("s3", true)]))
        XCTAssertEqual(server.requestCount(path: "/d.png"), 2)
        let got7 = try await s3.entry(forKey: url)?.metadata
        let refreshed = try XCTUnwrap(got7)
        XCTAssertGreaterThan(refreshed.storedAt, storedBefore, "the 304 renewed the object")
        let promoted = try await DWMemoryCacheTier(cache: secondCache).data(forKey: url)
        XCTAssertEqual(promoted, v1, "and promoted it to memory")

        // The origin changed: a 200 replaces the object.
        server.setRoute("/d.png", .status(200, body: v2, headers: [("ETag", "\"e2\"")]))
        let got8 = try await Self.fetch(second, url).get()
        XCTAssertEqual(got8.data, v2)
        XCTAssertEqual(try moto.objects(prefix: "tiers/")[object], v2)
        let got9 = try await s3.entry(forKey: url)?.metadata?.etag
        XCTAssertEqual(got9, "\"e2\"")
    }

    func testNginxETagAndLastModifiedRevalidateTheDiskTier() async throws {
        let ca = try peer { try TestCA() }
        let nginx = try peer { try NginxTLS(ca: ca) }
        defer { nginx.stop() }
        try nginx.put("e.png", v1)
        try FileManager.default.createDirectory(
            at: nginx.documentRoot.appendingPathComponent("noetag"), withIntermediateDirectories: true)
        chmod(nginx.documentRoot.appendingPathComponent("noetag").path, 0o755)
        try nginx.put("noetag/l.png", v1)
        let (manager, cache) = manager("nginx", caFile: ca.caFile)
        defer { manager.invalidate() }
        for name in ["e.png", "noetag/l.png"] {
            cache.expirationTime = 3600
            let url = nginx.baseURL + "/" + name
            let got10 = try await Self.fetch(manager, url).get()
            XCTAssertEqual(got10.source, .network)
            let metadata = try XCTUnwrap(cache.entryMetadata(forKey: url))
            XCTAssertEqual(metadata.etag == nil, name.hasPrefix("noetag"), "nginx's ETag, or Last-Modified alone")
            XCTAssertNotNil(metadata.lastModified)
            cache.expirationTime = 0
            let image = try await Self.fetch(manager, url).get()
            XCTAssertEqual(image.source, .revalidated, name)
            XCTAssertEqual(image.data, v1)
            XCTAssertNotNil(image.entryFile)
        }
        XCTAssertTrue(eventually { nginx.accessLog.components(separatedBy: "\" 304 ").count == 3 }, nginx.accessLog)

        // The file changes: nginx answers the conditional request with 200, which replaces the entry.
        try nginx.put("e.png", v2)
        let changed = try await Self.fetch(manager, nginx.baseURL + "/e.png").get()
        XCTAssertEqual(changed.source, .network)
        XCTAssertEqual(changed.data, v2)
        cache.expirationTime = 3600
        let disk = try await DWDiskCacheTier(cache: cache).data(forKey: nginx.baseURL + "/e.png")
        XCTAssertEqual(disk, v2)
    }

    func testA304ForAnotherETagIsAFailureThatDropsTheStaleEntry() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        let url = server.url("/f.png")
        serveV1(server, "/f.png")
        let (manager, cache) = manager("f")
        defer { manager.invalidate() }
        _ = try await Self.fetch(manager, url).get()
        cache.expirationTime = 0
        // A lying origin: "not modified" for an entity it names differently.
        let v2 = v2
        server.setHandler("/f.png") { request in
            request.header("If-None-Match") != nil
                ? .status(304, headers: [("ETag", "\"e2\"")]) : .status(200, body: v2, headers: [("ETag", "\"e2\"")])
        }
        guard case .failure(let error) = await Self.fetch(manager, url) else {
            return XCTFail("the stale bytes under e2")
        }
        XCTAssertEqual(error.code, .httpStatus)
        XCTAssertEqual(error.httpStatus, 304)
        XCTAssertNil(cache.entryMetadata(forKey: url), "the stale entry is gone from disk")
        let memory = try await DWMemoryCacheTier(cache: cache).data(forKey: url)
        XCTAssertNil(memory, "and from memory")
        let next = try await Self.fetch(manager, url).get()
        XCTAssertEqual(next.data, v2, "fetched whole")
        XCTAssertNil(server.requestLog.last?.header("If-None-Match"))
    }

    func testA304ToARequestWithoutValidatorsStoresNothing() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        let url = server.url("/g.png")
        server.setRoute("/g.png", .status(200, body: v1))  // no validators
        let (manager, cache) = manager("g")
        defer { manager.invalidate() }
        _ = try await Self.fetch(manager, url).get()
        cache.expirationTime = 0
        server.setRoute("/g.png", .status(304, headers: [("ETag", "\"e1\"")]))
        guard case .failure(let error) = await Self.fetch(manager, url) else { return XCTFail("a 304 to a plain GET") }
        XCTAssertEqual(error.httpStatus, 304)
        XCTAssertNil(server.requestLog.last?.header("If-None-Match"), "a stale entry without validators is a miss")
        XCTAssertNil(server.requestLog.last?.header("If-Modified-Since"))
        XCTAssertNil(cache.entryMetadata(forKey: url), "nothing on disk")
    }

    func testAnOriginFailingDuringRevalidationLeavesTheStaleEntryForOfflineUse() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        let url = server.url("/h.png")
        serveV1(server, "/h.png")
        let (manager, cache) = manager("h")
        defer { manager.invalidate() }
        _ = try await Self.fetch(manager, url).get()
        cache.expirationTime = 0
        for route: Route in [.status(503), .closeImmediately] {
            server.setRoute("/h.png", route)
            guard case .failure(let error) = await Self.fetch(manager, url) else {
                return XCTFail("served stale online")
            }
            XCTAssertTrue([.httpStatus, .transport].contains(error.code), "\(error)")
            XCTAssertEqual(server.requestLog.last?.header("If-None-Match"), "\"e1\"")
            XCTAssertEqual(cache.entryMetadata(forKey: url)?.etag, "\"e1\"", "the stale entry, unchanged")
        }
        let offline = try await Self.fetch(manager, url, options: .fromCacheOnly).get()
        XCTAssertEqual(offline.data, v1, "offline, a stale image beats none")
        XCTAssertEqual(offline.source, .memory)
        serveV1(server, "/h.png")
        let got11 = try await Self.fetch(manager, url).get()
        XCTAssertEqual(got11.source, .revalidated, "and it still revalidates")
    }

    func testEntryFilesFollowTheDiskTierAndWillCache() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        server.setRoute("/i.png", .ok(v1))
        let url = server.url("/i.png")
        let (plain, _) = manager("i")
        let downloaded = try await Self.fetch(plain, url).get()
        plain.invalidate()
        XCTAssertEqual(downloaded.entryFile?.size, v1.count)
        // A new memory over that disk: the disk tier's hit carries its file.
        let (again, _) = manager("i")
        defer { again.invalidate() }
        let hit = try await Self.fetch(again, url).get()
        XCTAssertEqual(hit.source, .disk)
        XCTAssertEqual(hit.entryFile, downloaded.entryFile)
        // Bytes willCache changes on their way to disk are not the image's: no entry file.
        let (transformed, _) = manager("j", willCache: { data, _, tier in tier == "disk" ? data + Data([0]) : data })
        defer { transformed.invalidate() }
        let changed = try await Self.fetch(transformed, url).get()
        XCTAssertEqual(changed.data, v1)
        XCTAssertNil(changed.entryFile)
    }

    func testTheDefaultPathFailsA304ForAnotherETagAndDropsItsEntry() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/k.png", .resource(v1, contentType: "image/png", etag: "\"e1\""))
        XCTAssertEqual(try h.fetch(h.server.url("/k.png")).get().source, .network)
        _ = h.cache.waitForPendingWrites()
        let v2 = v2
        h.server.setHandler("/k.png") { request in
            request.header("If-None-Match") != nil ? .status(304, headers: [("ETag", "\"e2\"")]) : .ok(v2)
        }
        let (manager, cache) = h.anotherManager { $0.expirationTime = 0 }
        defer { manager.invalidate() }
        let result = Result { try Harness.fetch(manager, h.server.url("/k.png")) }
        guard case .failure(let error as DWWebImageError) = result else { return XCTFail("v1 kept under e2") }
        XCTAssertEqual(error.httpStatus, 304)
        XCTAssertNil(cache.entryMetadata(forKey: h.server.url("/k.png")), "the out-of-date entry is removed")
    }
}
