// Warming: a source's preset variants made before the first visitor and written to result storage under the exact
// key a request looks up — `dwfetch warm` and `POST /warm` on the admin (metrics) listener.
import DWWebImage
import DWWebImageProcessing
import Foundation
import Hummingbird
import HTTPTypes

/// What warming one variant came to.
public struct DWWarmOutcome: Sendable, Equatable {
    /// What happened to the variant.
    public enum Result: String, Sendable, Equatable {
        /// Made here and written to result storage.
        case stored
        /// Result storage held it already: nothing fetched or made.
        case present
        /// Refused or failed; ``DWWarmOutcome/message`` says why.
        case failed
    }

    /// The source as given.
    public let source: String
    /// The preset's name.
    public let preset: String
    /// What happened.
    public let result: Result
    /// Why it failed (the answer a request would have had); nil otherwise.
    public let message: String?
}

extension DWImageServer {
    /// Makes the variant `/…/pr:PRESET/plain/SOURCE` (`PRESET/plain/SOURCE` with `--only-presets`) would be, as a
    /// request without `Accept` or client hints plans it (``plan(for:bucket:)``, the `default` preset included), and
    /// writes it to result storage under the key that request looks up
    /// (``DWImageProcessors/cacheKey(url:processors:)`` through ``DWResultStorage/location(forVariantKey:)``), so
    /// that request is a hit on any instance: no origin request, no transform. The source passes the request's checks
    /// first (source rules, `--allow-host`, `--allow-s3`; a `local://` source is never shared, so never warmed). A
    /// variant the store holds already is not made again. Runs on the caller's task; the fetch and transform on the
    /// pipeline's queues and worker threads, the write on a global queue thread (awaited: when this returns, the
    /// object is stored).
    public func warm(source: String, preset: String) async -> DWWarmOutcome {
        func failed(_ message: String) -> DWWarmOutcome {
            DWWarmOutcome(source: source, preset: preset, result: .failed, message: message)
        }
        guard let resultStorage else { return failed("no --result-storage to warm") }
        let presets = configuration.imgproxy.presets
        let segment = presets.onlyPresets ? preset : "pr:" + preset
        let encoded = source.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? source
        let url: DWProxyURL
        do {
            url = try DWProxyURL(
                target: "/warm/\(segment)/plain/\(encoded)", presets: presets,
                sources: configuration.imgproxy.sources)
        } catch {
            return failed(error.description)
        }
        guard !Self.hasUserinfo(url.source), !url.source.hasPrefix(DWLocalFileLoader.scheme), sourceIsAllowed(url),
            configuration.allowS3 || DWS3Location(url.source) == nil
        else {
            return failed("source not allowed or never shared")
        }
        guard let plan = plan(for: url, bucket: configuration.acceptFormats.bucket(accept: nil)) else {
            return failed("raw:1 has no variant to warm")
        }
        let key = DWImageProcessors.cacheKey(url: url.source, processors: [plan])
        if await resultStorage.lookup(variantKey: key, as: { $0 }) != nil {
            return DWWarmOutcome(source: source, preset: preset, result: .present, message: nil)
        }
        do {
            let made = try await manager.image(withURL: url.source, options: .processors([plan]))
            guard let contentType = made.format.mimeType else { return failed("source is not an image") }
            try await resultStorage.client.put(
                resultStorage.location(forVariantKey: key), data: made.data,
                contentType: contentType)
            metrics.resultStorage("stored")
            if let record = Self.framesDroppedRecord(plan, made) {  // X-Frames-Dropped for the answers to come
                let recordKey = Self.framesDroppedKey(source: url.source, plan: plan)
                try await resultStorage.client.put(
                    resultStorage.location(forVariantKey: recordKey), data: record,
                    contentType: "text/plain")
            }
        } catch let error as DWWebImageError {
            return failed(DWStatusMapping.status(for: error).1)
        } catch {
            metrics.resultStorage("error")
            return failed("result storage refused the write (\(error))")
        }
        return DWWarmOutcome(source: source, preset: preset, result: .stored, message: nil)
    }

    /// Every preset of every source (``warm(source:preset:)``), `concurrency` at a time; the outcomes in the order
    /// of `sources`, then `presets`. Runs on the caller's task.
    public func warm(sources: [String], presets: [String], concurrency: Int) async -> [DWWarmOutcome] {
        let pairs = sources.flatMap { source in presets.map { (source, $0) } }
        var outcomes = [DWWarmOutcome?](repeating: nil, count: pairs.count)
        await withTaskGroup(of: (Int, DWWarmOutcome).self) { group in
            var next = 0
            func add() {
                guard next < pairs.count else { return }
                let (index, pair) = (next, pairs[next])
                group.addTask { (index, await self.warm(source: pair.0, preset: pair.1)) }
                next += 1
            }
            for _ in 0..<max(1, concurrency) { add() }
            for await (index, outcome) in group {
                outcomes[index] = outcome
                add()
            }
        }
        return outcomes.compactMap { $0 }
    }

    /// The largest `POST /warm` body read.
    static let maxWarmBody = 256 * 1024

    /// `POST /warm` on the admin listener: the body `{"sources": [URL, …], "presets": [NAME, …]}` signed as
    /// `POST /purge` is (`X-Signature`, lowercase hex HMAC-SHA256 of the raw body keyed with a `--key`'s bytes; none:
    /// 401, wrong or no `--key`: 403, nothing warmed), then every preset of every source warmed
    /// (``warm(sources:presets:concurrency:)``, `--jobs` at a time); the answer, once all are stored,
    /// `{"stored": N, "present": M, "failed": K, "errors": [{"source", "preset", "message"}, …]}`. A preset the server
    /// does not define fails that variant. Runs on the admin listener's task.
    func warmResponse(_ request: Request) async -> Response {
        guard let signature = request.headers[HTTPField.Name("X-Signature")!] else {
            return DWResponses.error(.unauthorized, "warm needs an X-Signature header")
        }
        guard let body = try? await request.body.collect(upTo: Self.maxWarmBody) else {
            return DWResponses.error(.contentTooLarge, "warm body over \(Self.maxWarmBody) bytes")
        }
        let bytes = Array(body.readableBytesView)
        guard configuration.signers.contains(where: { $0.isValidAdmin(signature: signature, for: bytes) }) else {
            return DWResponses.error(.forbidden, "invalid warm signature")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let sources = object["sources"] as? [String], let presets = object["presets"] as? [String]
        else { return DWResponses.error(.badRequest, "warm body is {\"sources\": [URL, …], \"presets\": [NAME, …]}") }
        let outcomes = await warm(sources: sources, presets: presets, concurrency: configuration.jobs)
        let count = { (result: DWWarmOutcome.Result) in outcomes.filter { $0.result == result }.count }
        let errors: [[String: String]] = outcomes.compactMap { outcome in
            outcome.message.map { ["source": outcome.source, "preset": outcome.preset, "message": $0] }
        }
        let answer: [String: Any] = [
            "stored": count(.stored), "present": count(.present), "failed": count(.failed),
            "errors": errors
        ]
        let json = (try? JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys])) ?? Data("{}".utf8)
        return DWResponses.text(.ok, String(decoding: json, as: UTF8.self), contentType: "application/json")
    }

    /// What a `plain/` source keeps unescaped.
    private static let unreserved = CharacterSet(
        charactersIn:
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
}
