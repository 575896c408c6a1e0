// DWResultStorage: variants shared between instances through an S3 bucket (`serve --result-storage s3://b/prefix`).
import DWLocking
import DWWebImage
import Foundation
import Logging

/// Looks a variant up in the store before it is made and writes it there after, so any instance serves a variant
/// another made. Objects are named `prefix/<hex SHA-256 of the fetch policy and the variant key>` — the key is the
/// source URL and the plan's identifier (``DWImageProcessors/cacheKey(url:processors:)``), never the URL's
/// signature; the policy is ``DWCachePolicyMarker/fingerprint(of:)`` (allowed networks and hosts, proxy, animation
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

    /// The object a variant key is stored under.
    func location(forVariantKey key: String) -> DWS3Location {
        let named = "dwserve-result-v2\n" + policy + "\n" + key
        let hex = DWDigest.sha256Hex(named)
        return prefix.appending(hex)
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
