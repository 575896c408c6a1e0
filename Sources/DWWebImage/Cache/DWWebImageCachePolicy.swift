// DWWebImageCachePolicy: where the cache keeps entries.

/// Which layers ``DWWebImageCache`` uses. The DW original's `NoCache` is the empty set.
public struct DWWebImageCachePolicy: OptionSet, Sendable, Hashable {
    /// The flag bits.
    public let rawValue: UInt
    /// Creates a policy from flag bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Keep entries in memory (`NSCache`, bounded by count and bytes).
    public static let memory = DWWebImageCachePolicy(rawValue: 1 << 0)
    /// Keep entries on disk, under the cache space's directory.
    public static let disk = DWWebImageCachePolicy(rawValue: 1 << 1)
}
