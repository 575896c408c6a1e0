// POST /purge on the admin (metrics) listener: every cached copy of a source — original and variants — dropped from
// this instance's memory and disk and from the shared result storage, by an operator who signs the request.
import DWWebImage
import Foundation
import Hummingbird
import HTTPTypes

extension DWImageServer {
    /// The largest purge body read.
    static let maxPurgeBody = 256 * 1024

    /// `POST /purge`: the body `{"sources": ["<source URL>", …], "tags": […]}` signed with `X-Signature`, lowercase
    /// hex HMAC-SHA256 of the raw body keyed with one of the `--key`s' bytes (no salt). No signature: 401; a wrong one,
    /// or a server without `--key`: 403 — nothing is purged. Then each source's original and every variant (and
    /// `/info` answer) are removed from this instance's memory, decoded tier and disk (every disk entry's key is read)
    /// and from `--result-storage`; the answer is `{"originals": N, "variants": M}` (M counts the local variants and
    /// the stored objects deleted). A tag purges every source this instance served under it since it started
    /// (``tagIndex``, bounded), as if named in `sources`; the CDN's and Varnish's copies go by the tag's `xkey`.
    /// Runs on the admin listener's task; the disk and store work off the event loops.
    func purgeResponse(_ request: Request) async -> Response {
        guard let signature = request.headers[HTTPField.Name("X-Signature")!] else {
            return DWResponses.error(.unauthorized, "purge needs an X-Signature header")
        }
        guard let body = try? await request.body.collect(upTo: Self.maxPurgeBody) else {
            return DWResponses.error(.contentTooLarge, "purge body over \(Self.maxPurgeBody) bytes")
        }
        let bytes = Array(body.readableBytesView)
        guard configuration.signers.contains(where: { $0.isValidAdmin(signature: signature, for: bytes) }) else {
            return DWResponses.error(.forbidden, "invalid purge signature")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let named = (object["sources"] ?? [String]()) as? [String],
            let tags = (object["tags"] ?? [String]()) as? [String]
        else { return DWResponses.error(.badRequest, "purge body is {\"sources\": [URL, …], \"tags\": [NAME, …]}") }
        var seen = Set<String>(), sources: [String] = []
        for source in named + tags.flatMap(tagIndex.take) where seen.insert(source).inserted { sources.append(source) }
        var (originals, variants) = (0, 0)
        for source in sources {
            let removed = await removeCached(source)
            originals += removed.filter { $0 == source }.count
            variants += removed.filter { $0 != source }.count
            if let resultStorage { variants += await resultStorage.purge(source: source) }
        }
        let answer = "{\"originals\":\(originals),\"variants\":\(variants)}"
        return DWResponses.text(.ok, answer, contentType: "application/json")
    }

    /// Removes `source`'s original and variants from the pipeline's cache (memory, decoded tier, disk) on a global
    /// queue; the keys removed.
    private func removeCached(_ source: String) async -> [String] {
        let cache = manager.cache
        return await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: cache.removeEntries { DWWebImageCache.key($0, isOf: source) })
            }
        }
    }
}
