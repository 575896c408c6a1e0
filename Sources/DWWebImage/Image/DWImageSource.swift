// DWImageSource: where a delivered image came from (network, memory, disk, revalidated).

/// Where an image came from.
public enum DWImageSource: String, Sendable {
    /// Downloaded now.
    case network
    /// The memory cache.
    case memory
    /// The disk cache.
    case disk
    /// An expired disk entry the server confirmed as current (HTTP 304 to If-None-Match / If-Modified-Since).
    case revalidated
}
