// DWResultStorage: variants shared between instances through an S3 bucket (`serve --result-storage s3://b/prefix`).
import DWLocking
import DWWebImage
import Foundation
import Logging

/// Looks a variant up in the store before it is made and writes it there after, so any instance serves a variant
/// another made. Objects are named `prefix/<hex SHA-256 of the source URL>/<hex SHA-256 of the fetch policy and
/// the variant key>` — the key is the source URL and the plan's identifier (``DWImageProcessors/cacheKey(url:processors:)``),
/// never the URL's signature; every variant of a source sits under one name, so a purge lists and deletes them
/// (``purge(source:)``); objects of the earlier flat layout are never looked up again. The policy is ``DWCachePolicyMarker/fingerprint(of:)`` (allowed networks and hosts, proxy, animation
/// frames), so an instance never serves a variant made under a looser fetch policy than its own. A store that
/// fails (down, refusing, slow) never fails a request: the variant is made locally, the failure is logged and
/// counted (`dwserve_result_storage_total{outcome="error"}`). Reads block a global dispatch queue thread (not an event
/// loop); writes run in detached tasks after the response, at most ``maxPendingWrites`` at once (more are dropped and
/// counted as `outcome="dropped"`: a burst of misses cannot pile up memory behind a slow store). Thread safety: the
/// pending count is one atomic-like ``DWLock`` (a leaf); everything else is immutable.
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

    /// The object a variant key is stored under: beside every other variant of its source.
    func location(forVariantKey key: String) -> DWS3Location {
        let named = "dwserve-result-v3\n" + policy + "\n" + key
        return prefix.appending(DWDigest.sha256Hex(Self.source(ofVariantKey: key))).appending(DWDigest.sha256Hex(named))
    }

    /// The source URL a variant key names (`<n>:<url>@…`, ``DWImageProcessors/cacheKey(url:identifiers:)``); the key
    /// itself when it is not one.
    static func source(ofVariantKey key: String) -> String {
        let utf8 = Array(key.utf8)
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")), let count = Int(String(decoding: utf8[..<colon], as: UTF8.self)),
              colon + 1 + count <= utf8.count
        else { return key }
        return String(decoding: utf8[(colon + 1)..<(colon + 1 + count)], as: UTF8.self)
    }

    /// Deletes every stored variant (and `/info` answer) of `source`, from every instance's view; how many. On a
    /// global dispatch queue thread; a failing store is logged and counts what was deleted before it failed.
    func purge(source: String) async -> Int {
        let directory = prefix.appending(DWDigest.sha256Hex(source))
        let (client, logger) = (client, logger)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                var deleted = 0
                do throws(DWS3Client.Failure) {
                    for key in try client.keys(bucket: directory.bucket, prefix: directory.key + "/") {
                        try client.delete(DWS3Location(bucket: directory.bucket, key: key))
                        deleted += 1
                    }
                } catch {
                    logger.warning("result storage: purging \(directory.url) failed (\(error))")
                }
                continuation.resume(returning: deleted)
            }
        }
    }

    /// The stored variant, or nil on a miss or when the store fails (logged and counted).
    func lookup(variantKey key: String) async -> DWImage? {
        await lookup(variantKey: key) { data throws in try DWImage(data: data) }
    }

    /// The stored bytes under `key` made into `make(bytes)` (nil and counted as an error when it throws: not an
    /// image, not the JSON expected), or nil on a miss or when the store fails (logged and counted).
    func lookup<T>(variantKey key: String, as make: (Data) throws -> T) async -> T? {
        let location = location(forVariantKey: key)
        do {
            guard let data = try await client.get(location) else {
                metrics.resultStorage("miss")
                return nil
            }
            let value = try make(data)
            metrics.resultStorage("hit")
            return value
        } catch let failure as DWS3Client.Failure {
            metrics.resultStorage("error")
            logger.warning("result storage: reading \(location.url) failed (\(failure)); making the variant here")
        } catch {
            metrics.resultStorage("error")
            logger.warning("result storage: \(location.url) is not what was stored (\(error)); making the variant here")
        }
        return nil
    }

    /// Writes a variant made here, in a detached task; a failure is logged and counted.
    func store(_ image: DWImage, variantKey key: String, contentType: String) {
        store(image.data, variantKey: key, contentType: contentType)
    }

    /// Writes bytes made here (a variant, an /info answer), in a detached task; a failure is logged and counted.
    func store(_ data: Data, variantKey key: String, contentType: String) {
        let location = location(forVariantKey: key)
        let (client, metrics, logger, pending) = (client, metrics, logger, pendingWrites)
        let admitted = pending.withLock { count -> Bool in
            guard count < Self.maxPendingWrites else { return false }
            count += 1
            return true
        }
        guard admitted else { return metrics.resultStorage("dropped") }
        Task.detached(priority: .utility) {
            defer { pending.withLock { $0 -= 1 } }
            do {
                try await client.put(location, data: data, contentType: contentType)
                metrics.resultStorage("stored")
            } catch {
                metrics.resultStorage("error")
                logger.warning("result storage: writing \(location.url) failed (\(error))")
            }
        }
    }
}
