// DWNamedOriginLoader: `NAME://PATH` sources loaded from the origin behind the name, with that origin's headers,
// allowed networks or S3 credentials, while the pipeline caches, coalesces and counts them under `NAME://PATH`.
import DWWebImage
import Foundation

/// Loads the sources of the named origins (``DWNamedOrigin``) as a ``DWImageLoader`` of the server's pipeline: the
/// pipeline keys its memory and disk entries, coalescing, negative cache and result storage by the `NAME://PATH` the
/// request carries, and only this loader knows the URL or bucket behind the name.
///
/// An http origin is fetched through a manager of its own (one per origin, sharing the server's cache object but
/// asked with `noCache`, so nothing is stored twice): libcurl with the origin's headers as its only extra request
/// headers, the SSRF guard with `--allow-network` plus the origin's `allow_network`, and redirects followed only
/// within the origin's scheme, host and port, so the headers never reach another host. An S3 origin is read with a
/// ``DWS3Client`` holding that origin's store and credentials. Loads run in the pipeline's loader task; a failure is
/// the ``DWWebImageError`` serve maps to a status (a missing object is 404, a refused one 502).
struct DWNamedOriginLoader: DWImageLoader {
    private enum Fetcher: Sendable {
        case http(DWWebImageManager)
        case s3(DWS3Client)
    }

    private let origins: [String: (origin: DWNamedOrigin, fetcher: Fetcher)]
    private let names: Set<String>

    /// A loader for `origins`, whose http requests start from `pipeline` (timeouts, limits, proxy, TLS, user agent,
    /// retries) and go through managers sharing `cache`; `networks` are the server's `--allow-network`.
    init(
        origins: [DWNamedOrigin], pipeline: DWWebImageManager.Configuration, networks: [DWCIDR],
        cache: DWWebImageCache, timeout: TimeInterval, maxSize: Int64
    ) {
        var table: [String: (origin: DWNamedOrigin, fetcher: Fetcher)] = [:]
        for origin in origins {
            switch origin.location {
            case .http(let base):
                let manager = DWWebImageManager(
                    cache: cache,
                    configuration: Self.configuration(
                        for: origin, base: base, pipeline: pipeline, networks: networks),
                    notificationCenter: NotificationCenter(), removeExpiredAtStart: false)
                manager.maxConcurrentDownloads = 64  // the server's pipeline holds a slot while this runs
                manager.maxConcurrentDownloadsPerHost = 64
                table[origin.name] = (origin, .http(manager))
            case .s3(_, let store):
                let client = DWS3Client(
                    configuration: store, timeout: timeout, maxBodySize: Int(clamping: maxSize),
                    proxy: pipeline.proxy)
                table[origin.name] = (origin, .s3(client))
            }
        }
        self.origins = table
        names = Set(table.keys)
    }

    func canLoad(_ url: String) -> Bool { DWNamedSource(url, names: names) != nil }

    func load(_ url: String, into body: DWImageLoaderBody) async throws {
        guard let source = DWNamedSource(url, names: names), let entry = origins[source.name] else {
            throw DWWebImageError.badOriginSource(url, "not a named origin's source")
        }
        if let problem = source.problem { throw DWWebImageError.badOriginSource(url, "source \(problem)") }
        let target = entry.origin.target(for: source.path)
        let data: Data
        switch entry.fetcher {
        case .http(let manager):
            data = try await manager.image(withURL: target, options: [.noCache]).data
        case .s3(let client):
            data = try await Self.read(target, with: client, url: url)
        }
        body.expect(length: Int64(data.count))
        try body.append(data)
    }

    /// The object at `target` (an s3 URL of the origin's bucket), or a ``DWWebImageError`` carrying the source's
    /// name (never the store's URL): 404 when missing, the store's status when it refused.
    private static func read(_ target: String, with client: DWS3Client, url: String) async throws(DWWebImageError)
        -> Data
    {
        guard let location = DWS3Location(target) else {
            throw .badOriginSource(url, "source is not a key of the origin's bucket")
        }
        do {
            guard let data = try await client.get(location) else {
                throw DWWebImageError.missing("the origin's store has no such object", url: url)
            }
            return data
        } catch let failure as DWS3Client.Failure {
            switch failure {
            case .status(let status):
                throw DWWebImageError(
                    .httpStatus, "the origin's store answered HTTP \(status)", url: url,
                    httpStatus: status)
            case .transport(let code, _):
                throw DWWebImageError(
                    .transport, "the origin's store is unreachable (curl \(code))", url: url,
                    curlCode: code)
            }
        } catch let error as DWWebImageError {
            throw error
        } catch {
            throw DWWebImageError(.transport, "the origin's store failed", url: url)
        }
    }

    /// The pipeline of one http origin: the server's, with this origin's headers, its networks added to the
    /// server's, redirects kept on the origin's scheme, host and port, no loaders and no negative cache of its own.
    private static func configuration(
        for origin: DWNamedOrigin, base: String, pipeline: DWWebImageManager.Configuration,
        networks: [DWCIDR]
    ) -> DWWebImageManager.Configuration {
        var configuration = pipeline
        configuration.loaders = []
        configuration.requestHeaders.merge(origin.headers) { $1 }
        configuration.failedURLTTL = 0
        configuration.failedURLTTLForGone = nil
        configuration.memoryCachesVariantSources = false
        let policy = DWAddressPolicy(allowedNetworks: networks + origin.allowedNetworks)
        configuration.connectionPolicy = { address, _ in policy.allows(address) }
        let home = URLComponents(string: base).map(Self.authority)
        configuration.redirectHandler = { redirect in
            let next = URLComponents(string: redirect.next.url)
            guard let next, next.user == nil, next.password == nil, Self.authority(next) == home else {
                return .refuse(reason: "redirect away from the named origin")
            }
            return .follow
        }
        return configuration
    }

    /// Scheme, host and port of `components`, lower-cased, the scheme's default port filled in.
    private static func authority(_ components: URLComponents) -> String {
        let scheme = components.scheme?.lowercased() ?? ""
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\((components.host ?? "").lowercased()):\(port)"
    }
}

extension DWImageServer {
    /// The loader of `configuration`'s named origins over the server's `pipeline` and `cache`. At start-up.
    static func originLoader(
        _ configuration: DWServeConfiguration, _ pipeline: DWWebImageManager.Configuration,
        _ cache: DWWebImageCache
    ) -> DWNamedOriginLoader {
        DWNamedOriginLoader(
            origins: configuration.origins, pipeline: pipeline, networks: configuration.allowedNetworks,
            cache: cache, timeout: configuration.timeout, maxSize: configuration.maxSize)
    }
}
