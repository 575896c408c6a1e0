// DWS3CacheTier: objects in an S3-compatible store as a cache tier, signed by libcurl (SigV4) through DWS3Client.
import Foundation

/// Objects in an S3-compatible store as a cache tier (name "s3"), each request one blocking libcurl transfer
/// signed as ``DWS3Client`` signs (SigV4), run on a global dispatch queue so the calling task's thread is not held.
/// `dwfetch serve`'s result storage (`--result-storage`) is made of these tiers. A missing object is a miss; any
/// other answer or a transport failure throws 10008 with the store's status or libcurl's code. Holds no mutable
/// state: safe from any thread.
public struct DWS3CacheTier: DWCacheTier {
    /// The "directory" entries live under: an entry is `location.appending(<SHA-256 hex of its key>)`.
    public let location: DWS3Location
    /// The store and its credentials.
    public let configuration: DWS3Configuration
    /// The signed requests.
    let client: DWS3Client

    /// Entries under `location` in the store `configuration` names; `timeout` bounds each request (seconds).
    public init(
        location: DWS3Location, configuration: DWS3Configuration = .fromEnvironment(), timeout: TimeInterval = 10
    ) {
        self.init(location: location, client: DWS3Client(configuration: configuration, timeout: timeout))
    }

    /// Entries under `location`, read and written with `client` (its proxy, timeout and body limit).
    package init(location: DWS3Location, client: DWS3Client) {
        self.location = location
        self.configuration = client.configuration
        self.client = client
    }

    /// "s3".
    public var name: String { "s3" }

    /// Where `key`'s entry lives: `location.appending(<SHA-256 hex of the key's UTF-8 bytes>)`.
    public func objectLocation(forKey key: String) -> DWS3Location {
        location.appending(DWS3Configuration.sha256Hex(Data(key.utf8)))
    }

    /// The object's bytes, or nil when there is none (404).
    public func data(forKey key: String) async throws(DWWebImageError) -> Data? {
        let object = objectLocation(forKey: key)
        do throws(DWS3Client.Failure) { return try await client.get(object) } catch {
            throw Self.error(error, object)
        }
    }

    /// Writes the object (content type `application/octet-stream`).
    public func store(_ data: Data, forKey key: String) async throws(DWWebImageError) {
        try await store(data, forKey: key, contentType: "application/octet-stream")
    }

    /// Writes the object with `contentType` (what the store answers a plain GET of it with).
    package func store(_ data: Data, forKey key: String, contentType: String) async throws(DWWebImageError) {
        let object = objectLocation(forKey: key)
        do throws(DWS3Client.Failure) { try await client.put(object, data: data, contentType: contentType) } catch {
            throw Self.error(error, object)
        }
    }

    /// Deletes the object (one that is not there is not an error).
    public func removeData(forKey key: String) async throws(DWWebImageError) {
        let object = objectLocation(forKey: key)
        let client = client
        let failure: DWS3Client.Failure? = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                do throws(DWS3Client.Failure) {
                    try client.delete(object)
                    continuation.resume(returning: nil)
                } catch { continuation.resume(returning: error) }
            }
        }
        if let failure { throw Self.error(failure, object) }
    }

    /// Deletes every object under ``location`` (ListObjectsV2, then one DELETE each) on a global dispatch queue; how
    /// many were deleted, and the failure that stopped it, if any.
    package func removeAll() async -> (deleted: Int, failure: DWWebImageError?) {
        let (client, directory) = (client, location)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                var deleted = 0
                do throws(DWS3Client.Failure) {
                    let key = directory.key
                    let prefix = key.isEmpty || key.hasSuffix("/") ? key : key + "/"
                    for key in try client.keys(bucket: directory.bucket, prefix: prefix) {
                        try client.delete(DWS3Location(bucket: directory.bucket, key: key))
                        deleted += 1
                    }
                    continuation.resume(returning: (deleted, nil))
                } catch { continuation.resume(returning: (deleted, Self.error(error, directory))) }
            }
        }
    }

    /// 10008 for a store's failure, with its HTTP status or libcurl code.
    static func error(_ failure: DWS3Client.Failure, _ object: DWS3Location) -> DWWebImageError {
        switch failure {
        case .status(let status):
            DWWebImageError(.cacheIO, "S3 tier: \(failure)", url: object.url, httpStatus: status)
        case .transport(let code, _):
            DWWebImageError(.cacheIO, "S3 tier: \(failure)", url: object.url, curlCode: code)
        }
    }
}

extension DWS3CacheTier: MetadataCacheTier {
    /// The `x-amz-meta-` headers an entry's metadata travels in (user metadata: returned with the object).
    private enum Meta {
        static let storedAt = "x-amz-meta-dw-stored-at"
        static let etag = "x-amz-meta-dw-etag"
        static let lastModified = "x-amz-meta-dw-last-modified"
        static let cacheControl = "x-amz-meta-dw-cache-control"
        static let expires = "x-amz-meta-dw-expires"
    }

    /// The object and the metadata its `x-amz-meta-dw-*` headers carry (none: an object written by
    /// ``store(_:forKey:)``, always fresh); one GET on a global dispatch queue.
    func entry(forKey key: String) async throws(DWWebImageError) -> TierEntry? {
        let (object, client) = (objectLocation(forKey: key), client)
        let result: Result<(body: Data, headers: [String: String])?, DWS3Client.Failure> =
            await withCheckedContinuation { continuation in
                DispatchQueue.global(qos: .userInitiated).async {
                    do throws(DWS3Client.Failure) {
                        continuation.resume(returning: .success(try client.object(object)))
                    } catch { continuation.resume(returning: .failure(error)) }
                }
            }
        let found: (body: Data, headers: [String: String])?
        do throws(DWS3Client.Failure) { found = try result.get() } catch { throw Self.error(error, object) }
        guard let (body, headers) = found else { return nil }
        guard let seconds = headers[Meta.storedAt].flatMap(TimeInterval.init) else { return TierEntry(data: body) }
        let metadata = DWCacheEntryMetadata(
            storedAt: Date(timeIntervalSince1970: seconds), etag: headers[Meta.etag],
            lastModified: headers[Meta.lastModified], contentType: headers["content-type"],
            cacheControl: headers[Meta.cacheControl], expires: headers[Meta.expires])
        return TierEntry(data: body, metadata: metadata)
    }

    /// Writes the object with `metadata` in `x-amz-meta-dw-*` headers (a value that is not printable ASCII is left
    /// out) and its Content-Type; one PUT on a global dispatch queue. No file.
    func store(_ data: Data, metadata: DWCacheEntryMetadata, forKey key: String) async throws(DWWebImageError)
        -> DWCacheEntryFile?
    {
        var lines = ["\(Meta.storedAt): \(metadata.storedAt.timeIntervalSince1970)"]
        let fields = [
            (Meta.etag, metadata.etag), (Meta.lastModified, metadata.lastModified),
            (Meta.cacheControl, metadata.cacheControl), (Meta.expires, metadata.expires)
        ]
        for case (let name, let value?) in fields where Self.isHeaderSafe(value) { lines.append("\(name): \(value)") }
        let contentType = metadata.contentType.flatMap { Self.isHeaderSafe($0) ? $0 : nil }
        let (object, client, headers) = (objectLocation(forKey: key), client, lines)
        let failure: DWS3Client.Failure? = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                do throws(DWS3Client.Failure) {
                    try client.put(
                        object, data: data, contentType: contentType ?? "application/octet-stream", headers: headers)
                    continuation.resume(returning: nil)
                } catch { continuation.resume(returning: error) }
            }
        }
        if let failure { throw Self.error(failure, object) }
        return nil
    }

    /// Printable ASCII, not empty, no leading or trailing space: what S3 keeps as user metadata, and never a
    /// second header line.
    private static func isHeaderSafe(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { (0x20...0x7E).contains($0) } && value.first != " "
            && value.last != " "
    }
}
