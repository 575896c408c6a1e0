// DWResultStorage: variants shared between instances through an S3 bucket (`serve --result-storage s3://b/prefix`).
import DWLocking
import DWWebImage
import Foundation
import Logging

/// Looks a variant up in the store before it is made and writes it there after, so any instance serves a variant
/// another made. Every object is read, written and deleted through the library's ``DWS3CacheTier`` (one tier per
/// source, its location `prefix/<hex SHA-256 of the source URL>`). Objects are named
/// `prefix/<hex SHA-256 of the source URL>/<hex SHA-256 of the fetch policy and the variant key>` — the key is the
/// source URL and the plan's identifier (``DWImageProcessors/cacheKey(url:processors:)``), never the URL's signature;
/// every variant of a source sits under one name, so a purge lists and deletes them (``purge(source:)``); no other name
/// under the prefix is ever looked up. The policy is ``DWCachePolicyMarker/fingerprint(of:)`` (allowed networks and
/// hosts, proxy, animation frames), so an instance never serves a variant made under a looser fetch policy than its
/// own. A store that fails (down, refusing, slow) never fails a request: the variant is made locally, the failure is
/// logged and counted (`dwserve_result_storage_total{outcome="error"}`). Reads block a global dispatch queue thread
/// (not an event loop); writes run in detached tasks after the response, at most ``maxPendingWrites`` at once (more are
/// dropped and counted as `outcome="dropped"`: a burst of misses cannot pile up memory behind a slow store). Thread
/// safety: the pending count is one atomic-like ``DWLock`` (a leaf); everything else is immutable.
struct DWResultStorage: Sendable {
    let client: DWS3Client
    let prefix: DWS3Location
    /// The fetch policy's fingerprint, part of every object name.
    let policy: String
    let metrics: DWServerMetrics
    let logger: Logger
    /// Writes started and not yet ended.
    private let pendingWrites = DWLock(0)
    /// Most writes in flight at once.
    static let maxPendingWrites = 64

    init(client: DWS3Client, prefix: DWS3Location, policy: String, metrics: DWServerMetrics, logger: Logger) {
        self.client = client
        self.prefix = prefix
        self.policy = policy
        self.metrics = metrics
        self.logger = logger
    }

    /// The library's S3 tier holding every variant of `source` (`prefix/<hex SHA-256 of the source URL>/`).
    func tier(forSource source: String) -> DWS3CacheTier {
        DWS3CacheTier(location: prefix.appending(DWDigest.sha256Hex(source)), client: client)
    }

    /// The tier a variant key is stored in and the key it is stored under there (the fetch policy and the variant
    /// key, which the tier names by their SHA-256).
    func entry(forVariantKey key: String) -> (tier: DWS3CacheTier, key: String) {
        (tier(forSource: Self.source(ofVariantKey: key)), "dwserve-result-v3\n" + policy + "\n" + key)
    }

    /// The object a variant key is stored under: beside every other variant of its source.
    func location(forVariantKey key: String) -> DWS3Location {
        let (tier, named) = entry(forVariantKey: key)
        return tier.objectLocation(forKey: named)
    }

    /// The source URL a variant key names (`<n>:<url>@…`, ``DWImageProcessors/cacheKey(url:identifiers:)``); the key
    /// itself when it is not one.
    static func source(ofVariantKey key: String) -> String {
        let utf8 = Array(key.utf8)
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")),
            let count = Int(String(decoding: utf8[..<colon], as: UTF8.self)),
            colon + 1 + count <= utf8.count
        else { return key }
        return String(decoding: utf8[(colon + 1)..<(colon + 1 + count)], as: UTF8.self)
    }

    /// Deletes every stored variant (and `/info` answer) of `source`, from every instance's view; how many. On a
    /// global dispatch queue thread; a failing store is logged and counts what was deleted before it failed.
    func purge(source: String) async -> Int {
        let tier = tier(forSource: source)
        let (deleted, failure) = await tier.removeAll()
        if let failure { logger.warning("result storage: purging \(tier.location.url) failed (\(failure))") }
        return deleted
    }

    /// The stored variant, or nil on a miss or when the store fails (logged and counted).
    func lookup(variantKey key: String) async -> DWImage? {
        await lookup(variantKey: key) { data throws in try DWImage(data: data) }
    }

    /// The stored bytes under `key` made into `make(bytes)` (nil and counted as an error when it throws: not an
    /// image, not the JSON expected), or nil on a miss or when the store fails (logged and counted).
    func lookup<T>(variantKey key: String, as make: (Data) throws -> T) async -> T? {
        let (tier, named) = entry(forVariantKey: key)
        let location = tier.objectLocation(forKey: named)
        let data: Data?
        do throws(DWWebImageError) { data = try await tier.data(forKey: named) } catch {
            metrics.resultStorage("error")
            logger.warning("result storage: reading \(location.url) failed (\(error.message)); making the variant here")
            return nil
        }
        guard let data else {
            metrics.resultStorage("miss")
            return nil
        }
        do {
            let value = try make(data)
            metrics.resultStorage("hit")
            return value
        } catch {
            metrics.resultStorage("error")
            logger.warning("result storage: \(location.url) is not what was stored (\(error)); making the variant here")
            return nil
        }
    }

    /// Writes a variant made here, in a detached task; a failure is logged and counted.
    func store(_ image: DWImage, variantKey key: String, contentType: String) {
        store(image.data, variantKey: key, contentType: contentType)
    }

    /// Writes bytes made here (a variant, an /info answer), in a detached task; a failure is logged and counted.
    func store(_ data: Data, variantKey key: String, contentType: String) {
        let (tier, named) = entry(forVariantKey: key)
        let (metrics, logger, pending) = (metrics, logger, pendingWrites)
        let admitted = pending.withLock { count -> Bool in
            guard count < Self.maxPendingWrites else { return false }
            count += 1
            return true
        }
        guard admitted else { return metrics.resultStorage("dropped") }
        Task.detached(priority: .utility) {
            defer { pending.withLock { $0 -= 1 } }
            do throws(DWWebImageError) {
                try await tier.store(data, forKey: named, contentType: contentType)
                metrics.resultStorage("stored")
            } catch {
                metrics.resultStorage("error")
                logger.warning(
                    "result storage: writing \(tier.objectLocation(forKey: named).url) failed (\(error.message))")
            }
        }
    }
}
