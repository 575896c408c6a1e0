// DWImageServer + client limits: the Referer guard, and the cold budget that charges a client only for real work —
// an origin fetch or a transform — never for a cache hit.
import DWWebImage
import Foundation
import Hummingbird
import HTTPTypes

/// The client whose request the current task answers, for the cold budget (``DWColdBudget``).
enum DWClient {
    /// The request's remote address (set by the routes around each handler); nil outside them.
    @TaskLocal static var address: String?
}

extension DWImageServer {
    /// `Retry-After`.
    static let retryAfterHeader = HTTPField.Name("Retry-After")!

    /// 403 when `--allow-referer` is set and the request's `Referer` names another host (or none that parses); nil
    /// otherwise — a request without a `Referer` is allowed (browsers and privacy settings drop it). On the caller's
    /// thread.
    func refererRefusal(_ request: Request) -> Response? {
        let allowed = configuration.clientLimits.allowedReferers
        guard !allowed.isEmpty, let referer = request.headers[.referer] else { return nil }
        if let host = URLComponents(string: referer)?.host?.lowercased(), !host.isEmpty,
            DWRedirectGuard.isAllowed(host, by: allowed)
        {
            return nil
        }
        return refuse(.forbidden, "Referer not allowed", note: " referer-refused")
    }

    /// 429 with `Retry-After` when `job` needs cold work — its variant (its source, for `raw:1`) is in neither this
    /// instance's cache nor the result storage — and the client's budget is spent; nil otherwise (the token taken
    /// when it was cold). A variant found in the result storage is copied into the local cache, where the answer
    /// then finds it. `target` is the request's (for `--limit-by key`). Runs on the request's task, before any fetch.
    func coldRefusal(_ job: DWImageJob, target: String) async -> Response? {
        guard coldBudget != nil else { return nil }
        let key = job.plan.map { DWImageProcessors.cacheKey(url: job.url.source, processors: [$0]) } ?? job.url.source
        if !job.isLocal, isOnDisk(key) { return nil }
        if !job.isLocal, job.plan != nil, let resultStorage,
            let stored = await resultStorage.lookup(variantKey: key)
        {
            manager.cache.cacheObj(stored.data, forKey: key)
            return nil
        }
        return coldCharge(target: target)
    }

    /// The `/info` answer of `url` from the result storage when the cold budget is on (kept in the local cache; no
    /// charge), else 429 when the client's budget is spent, else nil (charged, or no budget): called after the local
    /// cache missed. `target` is the part after `/info`. Runs on the request's task.
    func coldInfoGate(_ url: DWProxyURL, _ options: DWInfoOptions, target: String) async -> (
        json: Data?, refusal: Response?
    ) {
        guard coldBudget != nil else { return (nil, nil) }
        let key = Self.infoKey(url, options)
        if !url.source.hasPrefix("local://"), let resultStorage,
            let json = await resultStorage.lookup(variantKey: key, as: Self.checkedInfo)
        {
            manager.cache.cacheObj(json, forKey: key)
            return (json, nil)
        }
        return (nil, coldCharge(target: target, info: true))
    }

    /// One token from the budget of the request's client: nil when taken (or no budget), else the 429. `info`: the
    /// target is an /info one (after `/info`), signed with the info keys.
    func coldCharge(target: String, info: Bool = false) -> Response? {
        guard let coldBudget, let wait = coldBudget.charge(clientID(target: target, info: info)) else { return nil }
        var response = refuse(.tooManyRequests, "cold request budget spent, retry later", note: " cold-limit")
        response.headers[Self.retryAfterHeader] = String(wait)
        return response
    }

    /// Whose budget a request with `target` (an image target, or with `info` an /info target after `/info`) is
    /// charged to: its remote address, or with `--limit-by key` the signing key that verifies it (`key:N`, its
    /// position among the keys), `unsigned` without keys, `other` for a trusted signature or a thumbor URL.
    func clientID(target: String, info: Bool) -> String {
        guard configuration.clientLimits.limitBy == .key else { return "ip:" + (DWClient.address ?? "unknown") }
        guard !configuration.signers.isEmpty else { return "unsigned" }
        guard let (signature, path) = try? DWProxyURL.split(target: target) else { return "other" }
        let signers = info ? (configuration.infoSigners ?? configuration.signers) : configuration.signers
        return signers.firstIndex { $0.isValid(signature: signature, for: path) }.map { "key:\($0)" } ?? "other"
    }

    /// Whether the disk tier holds a file for `key` (a stale one is revalidated, not fetched again: not charged).
    private func isOnDisk(_ key: String) -> Bool {
        let cache = manager.cache
        return cache.cachePolicy.contains(.disk)
            && FileManager.default.fileExists(atPath: cache.fileURL(forKey: key).path)
    }

    /// `body` with ``DWClient/address`` set to the request's remote address when budgets are by address (else
    /// `body` alone: nothing to read per request). In the request's task.
    func withClient<R>(of context: some RequestContext, _ body: () async -> R) async -> R {
        guard coldBudget != nil, configuration.clientLimits.limitBy == .ip else { return await body() }
        return await DWClient.$address.withValue(Self.clientAddress(context)) { await body() }
    }

    /// The remote address of a request's connection, when its context knows it.
    static func clientAddress(_ context: some RequestContext) -> String? {
        (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress
    }
}
