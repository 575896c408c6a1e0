// DWWebImageOptions: per-request flags (an OptionSet) that can also carry extra request headers.
import Foundation

/// Per-request options, used like an `OptionSet`:
///
/// ```swift
/// manager.downloadImage(
///     withURL: url, options: [.refreshCached, .highPriority, .headers(["Authorization": "Bearer …"])])
/// ```
///
/// Flags combine as set operations; headers given with ``headers(_:)`` are merged (a later value for the same name
/// wins); processors given with ``processors(_:)`` are a chain, and a later chain replaces an earlier one; a later
/// ``requestModifier(_:)``, ``redirectHandler(_:)`` or ``cacheKey(_:)`` replaces an earlier one.
///
/// Callers that join one download share its transfer: the first caller's headers, modifier and redirect handler
/// make the request.
public struct DWWebImageOptions: OptionSet, Sendable, Hashable {
    /// The flag bits.
    public let rawValue: UInt
    private var payload = Payload()

    /// Extra request headers ("Name" → "value"), sent with the transfer this request starts.
    public var requestHeaders: [String: String] { payload.headers }
    /// The processors applied, in order, to the downloaded image (see ``DWImageProcessor``); empty for the original.
    public var processors: [any DWImageProcessor] { payload.processors }
    /// This request's modifier (after the manager's); see ``requestModifier(_:)``.
    public var requestModifier: DWRequestModifier? { payload.requestModifier }
    /// This request's redirect handler (after the manager's); see ``redirectHandler(_:)``.
    public var redirectHandler: DWRedirectHandler? { payload.redirectHandler }
    /// The cache key asked for instead of the URL; see ``cacheKey(_:)``.
    public var cacheKey: String? { payload.cacheKey }
    /// URLs tried in order when the request fails; see ``alternativeSources(_:)``.
    public var alternativeSources: [String] { payload.alternativeSources }

    /// Creates options from flag bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Ignore cached entries, download again, and store the result (SDWebImage's `refreshCached`).
    public static let refreshCached = DWWebImageOptions(rawValue: 1 << 0)
    /// Answer from the cache only; a miss is error 10006 (SDWebImage's `fromCacheOnly`).
    public static let fromCacheOnly = DWWebImageOptions(rawValue: 1 << 1)
    /// Keep the result in the memory cache only; nothing is written to disk.
    public static let cacheMemoryOnly = DWWebImageOptions(rawValue: 1 << 2)
    /// Start before normal-priority work that is still waiting.
    public static let highPriority = DWWebImageOptions(rawValue: 1 << 3)
    /// Start after normal-priority work that is still waiting.
    public static let lowPriority = DWWebImageOptions(rawValue: 1 << 4)
    /// Neither read nor write any cache (the download is still coalesced with others for the same URL).
    public static let noCache = DWWebImageOptions(rawValue: 1 << 5)
    /// The highest priority level (``DWWebImagePriority/veryHigh``).
    public static let veryHighPriority = DWWebImageOptions(rawValue: 1 << 6)
    /// The lowest priority level (``DWWebImagePriority/veryLow``).
    public static let veryLowPriority = DWWebImageOptions(rawValue: 1 << 7)
    /// Marks a request made by ``DWWebImagePrefetcher``: it counts against the prefetch cap until someone
    /// else asks for the same URL.
    static let prefetch = DWWebImageOptions(rawValue: 1 << 8)
    /// Send this request even when its key failed within
    /// ``DWWebImageManager/Configuration/failedURLTTL`` (SDWebImage's `retryFailed`); its outcome replaces the
    /// remembered failure.
    public static let retryFailed = DWWebImageOptions(rawValue: 1 << 9)
    /// Ask the origin now whether the cached original is still current, fresh or not: an entry with an ETag or
    /// Last-Modified is revalidated with a conditional request (a 304 delivers it as ``DWImageSource/revalidated`` and
    /// renews its date), one without is fetched again in full. The memory cache is not read (a variant's own disk
    /// entry still is). With ``fromCacheOnly`` instead: the cached original as it is, expired or not (a variant made
    /// from it), and nothing kept in memory or written — a stale copy for when the origin fails, leaving no trace.
    public static let revalidate = DWWebImageOptions(rawValue: 1 << 10)

    /// Options for one of the five priority levels.
    public static func priority(_ level: DWWebImagePriority) -> DWWebImageOptions {
        switch level {
        case .veryLow: .veryLowPriority
        case .low: .lowPriority
        case .normal: []
        case .high: .highPriority
        case .veryHigh: .veryHighPriority
        }
    }

    /// The priority these options ask for (the highest flag given wins; none = normal).
    public var priority: DWWebImagePriority {
        if contains(.veryHighPriority) { return .veryHigh }
        if contains(.highPriority) { return .high }
        if contains(.veryLowPriority) { return .veryLow }
        if contains(.lowPriority) { return .low }
        return .normal
    }
    private static let headersBit = DWWebImageOptions(rawValue: 1 << 31)
    private static let processorsBit = DWWebImageOptions(rawValue: 1 << 30)
    private static let modifierBit = DWWebImageOptions(rawValue: 1 << 29)
    private static let redirectBit = DWWebImageOptions(rawValue: 1 << 28)
    private static let cacheKeyBit = DWWebImageOptions(rawValue: 1 << 27)
    private static let alternativesBit = DWWebImageOptions(rawValue: 1 << 26)

    /// Options that add request headers, e.g. `.headers(["Referer": "https://example.com/"])`.
    public static func headers(_ headers: [String: String]) -> DWWebImageOptions {
        var options = DWWebImageOptions(rawValue: headersBit.rawValue)
        options.payload.headers = headers
        return options
    }

    /// Options that process the downloaded image with `processors`, in order. The result is cached under
    /// ``DWImageProcessors/cacheKey(url:processors:)`` and the original under the URL, so another chain over a
    /// cached original needs no request. An empty chain asks for the original.
    public static func processors(_ processors: [any DWImageProcessor]) -> DWWebImageOptions {
        var options = DWWebImageOptions(rawValue: processors.isEmpty ? 0 : processorsBit.rawValue)
        options.payload.processors = processors
        return options
    }

    /// Changes this request before each attempt is sent, after the manager's
    /// ``DWWebImageManager/Configuration/requestModifier`` (e.g. a token fetched asynchronously). See
    /// ``DWRequestModifier``.
    public static func requestModifier(_ modifier: @escaping DWRequestModifier) -> DWWebImageOptions {
        var options = DWWebImageOptions(rawValue: modifierBit.rawValue)
        options.payload.requestModifier = modifier
        return options
    }

    /// Follows, refuses or rewrites each redirect of this request, after the manager's
    /// ``DWWebImageManager/Configuration/redirectHandler``. See ``DWRedirectHandler``.
    public static func redirectHandler(_ handler: @escaping DWRedirectHandler) -> DWWebImageOptions {
        var options = DWWebImageOptions(rawValue: redirectBit.rawValue)
        options.payload.redirectHandler = handler
        return options
    }

    /// Caches (and coalesces) this request under `key` instead of its URL (Kingfisher's `cacheKey`, Nuke's
    /// `imageId`): a signed URL whose query changes every hour is still one entry. A variant's key is built from
    /// it (``DWImageProcessors/cacheKey(url:processors:)`` over the key). An empty key means the URL.
    public static func cacheKey(_ key: String) -> DWWebImageOptions {
        var options = DWWebImageOptions(rawValue: key.isEmpty ? 0 : cacheKeyBit.rawValue)
        options.payload.cacheKey = key.isEmpty ? nil : key
        return options
    }

    /// URLs tried in order when the request fails with anything but 10007 (Kingfisher's `alternativeSources`):
    /// the first success is delivered, cached under the URL that gave it; when all fail, the last failure is. Each
    /// attempt is a request of its own with these options (without the alternatives), so progress restarts per URL
    /// and cancelling the token stops whichever attempt is running.
    public static func alternativeSources(_ urls: [String]) -> DWWebImageOptions {
        var options = DWWebImageOptions(rawValue: urls.isEmpty ? 0 : alternativesBit.rawValue)
        options.payload.alternativeSources = urls
        return options
    }

    /// Equal flags, headers, processor identifiers and cache keys (closures are compared by their flag only).
    public static func == (lhs: DWWebImageOptions, rhs: DWWebImageOptions) -> Bool {
        lhs.rawValue == rhs.rawValue && lhs.requestHeaders == rhs.requestHeaders && lhs.cacheKey == rhs.cacheKey
            && lhs.alternativeSources == rhs.alternativeSources
            && DWImageProcessors.identifier(of: lhs.processors) == DWImageProcessors.identifier(of: rhs.processors)
    }

    /// Hashes flags, headers, processor identifiers and the cache key.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
        hasher.combine(requestHeaders)
        hasher.combine(cacheKey)
        hasher.combine(alternativeSources)
        hasher.combine(DWImageProcessors.identifier(of: processors))
    }

    // SetAlgebra, written out so that headers, processors and the other payloads survive unions and inserts.

    /// Adds the flags and headers of `other`; its processors, modifier, handler and key replace these when it has them.
    public mutating func formUnion(_ other: DWWebImageOptions) {
        self = DWWebImageOptions(rawValue: rawValue | other.rawValue, payload: payload.merging(other.payload))
    }
    /// Keeps the flags both have; payloads are kept only if both carry them.
    public mutating func formIntersection(_ other: DWWebImageOptions) {
        let bits = rawValue & other.rawValue
        self = DWWebImageOptions(rawValue: bits, payload: payload.keeping(bits))
    }
    /// Keeps the flags exactly one of them has.
    public mutating func formSymmetricDifference(_ other: DWWebImageOptions) {
        let bits = rawValue ^ other.rawValue
        self = DWWebImageOptions(rawValue: bits, payload: other.payload.merging(payload).keeping(bits))
    }
    /// The union of both.
    public func union(_ other: DWWebImageOptions) -> DWWebImageOptions {
        var copy = self; copy.formUnion(other); return copy
    }
    /// The intersection of both.
    public func intersection(_ other: DWWebImageOptions) -> DWWebImageOptions {
        var copy = self; copy.formIntersection(other); return copy
    }
    /// The symmetric difference of both.
    public func symmetricDifference(_ other: DWWebImageOptions) -> DWWebImageOptions {
        var copy = self; copy.formSymmetricDifference(other); return copy
    }
    /// Whether every flag (and payload) of `member` is here. A member without payload bits — every flag constant —
    /// is judged on the bits alone, which is what the default (`intersection(member) == member`) comes to for it
    /// without building and comparing processor identifiers (a request asks several of these).
    public func contains(_ member: DWWebImageOptions) -> Bool {
        guard member.rawValue & Payload.allBits == 0 else { return intersection(member) == member }
        return rawValue & member.rawValue == member.rawValue
    }
    /// Inserts flags and payloads.
    @discardableResult
    public mutating func insert(_ newMember: DWWebImageOptions) -> (
        inserted: Bool, memberAfterInsert: DWWebImageOptions
    ) {
        let inserted = !contains(newMember) || newMember.rawValue & Payload.allBits != 0
        formUnion(newMember)
        return (inserted, newMember)
    }
    /// Removes flags (removing `.headers(...)` drops all headers, removing `.processors(...)` the chain, and so on).
    @discardableResult
    public mutating func remove(_ member: DWWebImageOptions) -> DWWebImageOptions? {
        guard contains(member) else { return nil }
        let bits = rawValue & ~member.rawValue
        self = DWWebImageOptions(rawValue: bits, payload: payload.keeping(bits))
        return member
    }
    /// Inserts, returning the member if it was already present.
    @discardableResult
    public mutating func update(with newMember: DWWebImageOptions) -> DWWebImageOptions? {
        let present = contains(newMember)
        formUnion(newMember)
        return present ? newMember : nil
    }

    /// These options without ``alternativeSources(_:)`` (one attempt's options).
    var withoutAlternatives: DWWebImageOptions {
        let bits = rawValue & ~Self.alternativesBit.rawValue
        return DWWebImageOptions(rawValue: bits, payload: payload.keeping(bits))
    }

    private init(rawValue: UInt, payload: Payload) {
        self.rawValue = rawValue
        self.payload = payload
    }

    /// What options carry besides flags; each item is present only while its bit is set.
    private struct Payload: Sendable {
        var headers: [String: String] = [:]
        var processors: [any DWImageProcessor] = []
        var requestModifier: DWRequestModifier?
        var redirectHandler: DWRedirectHandler?
        var cacheKey: String?
        var alternativeSources: [String] = []

        static let allBits =
            headersBit.rawValue | processorsBit.rawValue | modifierBit.rawValue | redirectBit.rawValue
            | cacheKeyBit.rawValue | alternativesBit.rawValue

        /// These items with `other`'s added: headers merged (other's win), the rest replaced where other has one.
        func merging(_ other: Payload) -> Payload {
            var merged = self
            merged.headers.merge(other.headers) { $1 }
            if !other.processors.isEmpty { merged.processors = other.processors }
            merged.requestModifier = other.requestModifier ?? requestModifier
            merged.redirectHandler = other.redirectHandler ?? redirectHandler
            merged.cacheKey = other.cacheKey ?? cacheKey
            if !other.alternativeSources.isEmpty { merged.alternativeSources = other.alternativeSources }
            return merged
        }

        /// Only the items whose bit is in `bits`.
        func keeping(_ bits: UInt) -> Payload {
            var kept = Payload()
            if bits & headersBit.rawValue != 0 { kept.headers = headers }
            if bits & processorsBit.rawValue != 0 { kept.processors = processors }
            if bits & modifierBit.rawValue != 0 { kept.requestModifier = requestModifier }
            if bits & redirectBit.rawValue != 0 { kept.redirectHandler = redirectHandler }
            if bits & cacheKeyBit.rawValue != 0 { kept.cacheKey = cacheKey }
            if bits & alternativesBit.rawValue != 0 { kept.alternativeSources = alternativeSources }
            return kept
        }
    }
}
