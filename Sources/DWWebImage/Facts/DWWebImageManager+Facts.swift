// DWWebImageManager.facts: an image's format, size, frames and orientation from its first 64 KiB.
import DWLocking
import Foundation

extension DWWebImageManager {
    /// Bytes asked for (`Range: bytes=0-65535`) and read at most: headers of every supported format fit.
    public static let factsHeadSize = 64 * 1024

    /// The image's facts — format, size, frames, orientation, total size — without downloading or keeping its
    /// body (the `.factsOnly` request): a cached image answers at once; otherwise one request asks for the first
    /// 64 KiB (`Range`, no compression) and stops reading there even if the server ignores the range. Nothing is
    /// cached. Request headers, the modifier and redirect handler, TLS and the connection policy apply; no retries.
    /// An `s3://bucket/key` URL is asked of ``Configuration/s3``'s endpoint, signed as its download would be.
    /// Runs the transfer on the engine thread; returns on the caller's task.
    ///
    /// - Throws: 10001/10002 for the URL, 10003/10004 as a download would, 10000 when the first bytes do not
    ///   tell (not an image, or headers past 64 KiB), 10007 when the task is cancelled.
    public func facts(withURL url: String, options: DWWebImageOptions = []) async throws(DWWebImageError)
        -> DWImageFacts
    {
        let configuration = self.configuration
        let request = RequestOptions(options, cachePolicy: cache.cachePolicy)
        let key = request.originalKey(url: url, filter: configuration.cacheKeyFilter)
        if request.readPolicy.contains(.memory), let image = cache.memoryImage(forKey: key) {
            return DWImageFacts(image)
        }
        if configuration.loader(for: url) != nil {  // files and data: URLs: their bytes are at hand
            return DWImageFacts(try await image(withURL: url, options: options.union(.noCache)))
        }
        let asciiURL: String
        switch URLValidator.validate(url, s3: configuration.s3) {
        case .failure(let error): throw error
        case .success(let valid): asciiURL = valid
        }
        var headers = configuration.requestHeaders.merging(request.headers) { $1 }
        headers["Range"] = "bytes=0-\(Self.factsHeadSize - 1)"
        var transfer = configuration.transferRequest(
            url: asciiURL, source: url, headers: headers, options: request, loader: nil)
        transfer.acceptEncoding = "identity"
        return try await HeadReader(engine: engine, request: transfer, url: url).read()
    }
}

/// One Range request for an image's head: collects at most ``DWWebImageManager/factsHeadSize`` bytes, then stops.
private final class HeadReader: Sendable {
    let engine: CurlMulti
    let request: TransferRequest
    let url: String
    private let bytes = DWLock(Data())
    private let head = DWLock<DWResponseHead?>(nil)

    init(engine: CurlMulti, request: TransferRequest, url: String) {
        self.engine = engine
        self.request = request
        self.url = url
    }

    func read() async throws(DWWebImageError) -> DWImageFacts {
        let limit = DWWebImageManager.factsHeadSize
        typealias Outcome = Result<TransferResult, TransferFailure>
        let waiting = DWLock<CheckedContinuation<Outcome, Never>?>(nil)
        let transfer = CurlTransfer(
            request: request,
            onHead: { [head] response in
                head.value = response
                return .replace
            },
            onData: { [bytes] chunk in
                bytes.withLock { held -> Bool in
                    held.append(contentsOf: chunk.prefix(limit - held.count))
                    return held.count < limit  // false: enough, stop the transfer
                }
            },
            onComplete: { outcome in
                waiting.withLock { c -> CheckedContinuation<Outcome, Never>? in
                    defer { c = nil }
                    return c
                }?.resume(returning: outcome)
            })
        let engine = self.engine
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiting.value = continuation
                engine.submit(transfer)
            }
        } onCancel: {
            engine.cancel(transfer)
        }
        return try facts(from: result)
    }

    private func facts(from result: Result<TransferResult, TransferFailure>) throws(DWWebImageError) -> DWImageFacts {
        let data = bytes.value
        var complete = false
        switch result {
        case .success(let r) where (200..<300).contains(r.head.status):
            complete = r.head.status == 200
        case .success(let r):
            throw DWWebImageError.http(r.head.status, url: url)
        case .failure(.rejected):
            break  // we stopped reading: the head is held
        case .failure(.cancelled):
            throw DWWebImageError.cancelled(url)
        case .failure(.hook(let error)):
            throw error.about(url)
        case .failure(.curl(let code, let message)):
            throw DWWebImageError.curl(code, message, url: url)
        case .failure(let other):
            throw DWWebImageError(.transport, "head request failed: \(other)", url: url)
        }
        let response = head.value
        let total =
            ResumeProtocol.parseContentRange(response?.contentRange)?.total
            ?? (response?.status == 200 ? response?.contentLength : nil)
        guard let facts = DWImageFacts(head: data, byteCount: total, isComplete: complete) else {
            throw DWWebImageError.notAnImage(
                url, bytes: data.count, detail: "its first \(data.count) bytes do not tell")
        }
        return facts
    }
}
