// DWWebImageOptions: per-request flags (an OptionSet) that can also carry extra request headers.
import Foundation

/// Per-request options, used like an `OptionSet`:
///
/// ```swift
/// manager.downloadImage(withURL: url, options: [.refreshCached, .highPriority, .headers(["Authorization": "Bearer …"])])
/// ```
///
/// Flags combine as set operations; headers given with ``headers(_:)`` are merged (a later value for the same name
/// wins); processors given with ``processors(_:)`` are a chain, and a later chain replaces an earlier one.
public struct DWWebImageOptions: OptionSet, Sendable, Hashable {
    /// The flag bits.
    public let rawValue: UInt
    /// Extra request headers ("Name" → "value"), sent with the transfer this request starts.
    public private(set) var requestHeaders: [String: String] = [:]
    /// The processors applied, in order, to the downloaded image (see ``DWImageProcessor``); empty for the original.
    public private(set) var processors: [any DWImageProcessor] = []

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

    /// Options that add request headers, e.g. `.headers(["Referer": "https://example.com/"])`.
    public static func headers(_ headers: [String: String]) -> DWWebImageOptions {
        var options = DWWebImageOptions(rawValue: headersBit.rawValue)
        options.requestHeaders = headers
        return options
    }

    /// Options that process the downloaded image with `processors`, in order. The result is cached under
    /// ``DWImageProcessors/cacheKey(url:processors:)`` and the original under the URL, so another chain over a
    /// cached original needs no request. An empty chain asks for the original.
    public static func processors(_ processors: [any DWImageProcessor]) -> DWWebImageOptions {
        var options = DWWebImageOptions(rawValue: processors.isEmpty ? 0 : processorsBit.rawValue)
        options.processors = processors
        return options
    }

    /// Equal flags, headers and processor identifiers.
    public static func == (lhs: DWWebImageOptions, rhs: DWWebImageOptions) -> Bool {
        lhs.rawValue == rhs.rawValue && lhs.requestHeaders == rhs.requestHeaders
            && DWImageProcessors.identifier(of: lhs.processors) == DWImageProcessors.identifier(of: rhs.processors)
    }

    /// Hashes flags, headers and processor identifiers.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
        hasher.combine(requestHeaders)
        hasher.combine(DWImageProcessors.identifier(of: processors))
    }

    // SetAlgebra, written out so that headers and processors survive unions and inserts.

    /// Adds the flags and headers of `other`; its processors replace these when it has any.
    public mutating func formUnion(_ other: DWWebImageOptions) {
        self = DWWebImageOptions(rawValue: rawValue | other.rawValue,
                                 headers: requestHeaders.merging(other.requestHeaders) { $1 },
                                 processors: other.processors.isEmpty ? processors : other.processors)
    }
    /// Keeps the flags both have; headers and processors are kept only if both carry them.
    public mutating func formIntersection(_ other: DWWebImageOptions) {
        let bits = rawValue & other.rawValue
        self = DWWebImageOptions(rawValue: bits, headers: bits & Self.headersBit.rawValue != 0 ? requestHeaders : [:],
                                 processors: bits & Self.processorsBit.rawValue != 0 ? processors : [])
    }
    /// Keeps the flags exactly one of them has.
    public mutating func formSymmetricDifference(_ other: DWWebImageOptions) {
        let bits = rawValue ^ other.rawValue
        let headers = requestHeaders.isEmpty ? other.requestHeaders : requestHeaders
        let chain = processors.isEmpty ? other.processors : processors
        self = DWWebImageOptions(rawValue: bits, headers: bits & Self.headersBit.rawValue != 0 ? headers : [:],
                                 processors: bits & Self.processorsBit.rawValue != 0 ? chain : [])
    }
    /// The union of both.
    public func union(_ other: DWWebImageOptions) -> DWWebImageOptions { var copy = self; copy.formUnion(other); return copy }
    /// The intersection of both.
    public func intersection(_ other: DWWebImageOptions) -> DWWebImageOptions {
        var copy = self; copy.formIntersection(other); return copy
    }
    /// The symmetric difference of both.
    public func symmetricDifference(_ other: DWWebImageOptions) -> DWWebImageOptions {
        var copy = self; copy.formSymmetricDifference(other); return copy
    }
    /// Inserts flags and headers.
    @discardableResult
    public mutating func insert(_ newMember: DWWebImageOptions) -> (inserted: Bool, memberAfterInsert: DWWebImageOptions) {
        let inserted = !contains(newMember) || !newMember.requestHeaders.isEmpty || !newMember.processors.isEmpty
        formUnion(newMember)
        return (inserted, newMember)
    }
    /// Removes flags (removing `.headers(...)` drops all headers, removing `.processors(...)` the chain).
    @discardableResult
    public mutating func remove(_ member: DWWebImageOptions) -> DWWebImageOptions? {
        guard contains(member) else { return nil }
        let bits = rawValue & ~member.rawValue
        self = DWWebImageOptions(rawValue: bits, headers: bits & Self.headersBit.rawValue != 0 ? requestHeaders : [:],
                                 processors: bits & Self.processorsBit.rawValue != 0 ? processors : [])
        return member
    }
    /// Inserts, returning the member if it was already present.
    @discardableResult
    public mutating func update(with newMember: DWWebImageOptions) -> DWWebImageOptions? {
        let present = contains(newMember)
        formUnion(newMember)
        return present ? newMember : nil
    }

    private init(rawValue: UInt, headers: [String: String], processors: [any DWImageProcessor]) {
        self.rawValue = rawValue
        self.requestHeaders = headers
        self.processors = processors
    }
}
