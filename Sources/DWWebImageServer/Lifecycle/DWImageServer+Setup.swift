// DWImageServer's set-up: its cache configuration and its public listener.
import DWWebImage
import Hummingbird
import HummingbirdCore

extension DWImageServer {
    /// Serve's own cache space, budget and age (never the CLI's space).
    static func cacheConfiguration(_ configuration: DWServeConfiguration) -> DWWebImageCache.Configuration {
        var cache = DWWebImageCache.Configuration(
            rootDirectory: configuration.cacheDirectory,
            cacheSpace: configuration.cacheSpace)
        cache.memoryCountLimit = 4096
        cache.memoryCostLimit = configuration.memoryCacheBytes
        cache.diskSizeLimit = configuration.cacheLimit
        cache.expirationTime = configuration.cacheMaxAge
        cache.memoryMaxAge = configuration.cacheMaxAge  // a copy in memory expires with its disk entry
        cache.privateFiles = true
        if !configuration.diskCache { cache.cachePolicy = [.memory] }
        return cache
    }

    /// The public listener: its address, and at most `--max-connections` connections (no more accepted until one
    /// closes).
    var applicationConfiguration: ApplicationConfiguration {
        ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port), serverName: nil,
            availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections))
    }
}
