// CurlTransfer: one transfer's callbacks and its engine-thread state (head parsing, byte cap, progress).
import Foundation
import DWLocking
internal import CCurlShim

/// What the consumer makes of the final response head (decided before a single body byte is delivered).
enum HeadOutcome: Sendable, Equatable {
    /// Take the body and append it to the `offset` bytes the consumer already holds.
    case append(offset: Int64)
    /// Take this body whole (the consumer drops whatever it held).
    case replace
    /// Stop the transfer before any body byte: the response cannot continue the bytes held, so the whole resource
    /// must be fetched again without Range (the transfer ends with ``TransferFailure/refetchWhole(_:)``).
    case refetchWhole(reason: String)
    /// Not a body to keep (an error status, or a 416 to judge once it has ended); its bytes are counted from 0.
    case noBody
}

/// One transfer. Its callbacks run on the engine thread, in this order: `onHead` once for the final response,
/// `onData` for each body chunk of a 2xx response, `onProgress` after each chunk, then `onComplete` exactly once.
/// Callbacks must be quick: they run inside libcurl's event loop.
final class CurlTransfer: @unchecked Sendable {
    // @unchecked: after `CurlMulti.submit`, the mutable fields below are read and written only on the engine's
    // thread (inside libcurl callbacks and the event loop); `cancelRequested`, `hookTask` and `completed` are the
    // cross-thread fields and sit behind their own DWLocks. Between redirect hops (RequestHooks) the transfer is in
    // no engine structure: the hook task hands it back through the engine's locked inbox.
    // The mutable fields are `@exclusivity(unchecked)`: one thread at a time touches them (above), and the runtime's
    // dynamic check of each access to a class's stored `var` (`swift_beginAccess`, ~65 instructions) ran about 20
    // times a transfer (a header line alone wrote two of them).

    let request: TransferRequest
    let onHead: @Sendable (DWResponseHead) -> HeadOutcome
    let onData: @Sendable (UnsafeRawBufferPointer) -> Bool
    let onProgress: @Sendable (_ received: Int64, _ expected: Int64) -> Void
    let onComplete: @Sendable (Result<TransferResult, TransferFailure>) -> Void

    /// Set from any thread by `CurlMulti.cancel`.
    let cancelRequested = DWLock(false)
    /// The request modifier or redirect handler running for this transfer (cancelled with it).
    let hookTask = DWLock<Task<Void, Never>?>(nil)
    /// The request of the hop in flight: `request` as the modifiers and redirect handlers left it (engine thread).
    @exclusivity(unchecked) var current: TransferRequest
    /// Redirects followed by the pipeline itself so far (engine thread; see RequestHooks).
    @exclusivity(unchecked) var hops = 0
    /// The final head is a redirect the pipeline follows itself (a redirect handler is set).
    @exclusivity(unchecked) private(set) var isRedirectHop = false

    // Engine-thread state.
    @exclusivity(unchecked) var easy: UnsafeMutableRawPointer?
    @exclusivity(unchecked) var headerList: OpaquePointer?
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(DW_CURL_ERROR_SIZE) + 1)
    @exclusivity(unchecked) private var pendingHead = DWResponseHead()
    @exclusivity(unchecked) private(set) var finalHead: DWResponseHead?
    /// `finalHead`'s status is 2xx: its body is the resource's (read for every chunk; a copy of the head is ten
    /// retains and releases).
    @exclusivity(unchecked) private var finalIsSuccess = false
    @exclusivity(unchecked) private(set) var received: Int64 = 0
    @exclusivity(unchecked) private(set) var abortReason: TransferFailure?
    private let completed = DWLock(false)

    init(
        request: TransferRequest,
        onHead: @escaping @Sendable (DWResponseHead) -> HeadOutcome = { _ in .replace },
        onData: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool,
        onProgress: @escaping @Sendable (Int64, Int64) -> Void = { _, _ in },
        onComplete: @escaping @Sendable (Result<TransferResult, TransferFailure>) -> Void
    ) {
        self.request = request
        self.current = request
        self.onHead = onHead
        self.onData = onData
        self.onProgress = onProgress
        self.onComplete = onComplete
        errorBuffer.initialize(repeating: 0, count: Int(DW_CURL_ERROR_SIZE) + 1)
    }

    deinit {
        errorBuffer.deallocate()
    }

    /// Bytes the consumer already holds before this response's body (a resumed download), as decided by
    /// `onHead`; sizes and progress count from there.
    @exclusivity(unchecked) private(set) var baseOffset: Int64 = 0

    /// The expected total body size (resumed bytes included), or -1 when the response did not say (or is coded:
    /// Content-Length then counts coded bytes, and the callbacks see decoded ones). Set with the final head.
    @exclusivity(unchecked) private(set) var expectedLength: Int64 = -1

    /// Called by libcurl for each header line (status lines included, CRLF included).
    func didReceiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        lastActivity = CoarseClock.now()
        if let status = DWResponseHead.status(fromStatusLine: line) {
            pendingHead = DWResponseHead()
            pendingHead.status = status
            pendingHeaders = [:]
            return true
        }
        guard line.contains(where: { $0 != 0x0D && $0 != 0x0A }) else {
            return didCompleteHead()
        }
        pendingHead.add(headerLine: line)
        if request.hooks.responseModifier != nil { Self.record(line, in: &pendingHeaders) }
        return true
    }

    /// Every header of the head being read, for the response modifier (only kept while one is set).
    @exclusivity(unchecked) private var pendingHeaders: [String: String] = [:]

    private static func record(_ line: UnsafeRawBufferPointer, in headers: inout [String: String]) {
        let text = String(decoding: line, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespacesAndNewlines)
        headers[name] = headers[name].map { $0 + ", " + value } ?? value
    }

    private func didCompleteHead() -> Bool {
        var head = pendingHead
        if head.status < 200 { return true }  // an interim 1xx: the final response is still to come
        if let modifier = request.hooks.responseModifier {
            switch modifier(DWURLResponse(url: current.url, status: head.status, headers: pendingHeaders)) {
            case .accept:
                break
            case .fail(let reason):
                finalHead = head
                let error = DWWebImageError(
                    .httpStatus, "response (\(head.status)) refused by the response modifier: \(reason)",
                    url: current.url, httpStatus: head.status)
                return abort(.hook(error))
            case .follow(let url):  // a redirect hop of ours (CurlMulti+Hooks), whatever the status
                head.location = url
                finalHead = head
                isRedirectHop = true
                return true
            }
        }
        // A redirect that libcurl will follow: the final response is still to come.
        if (300..<400).contains(head.status), head.location != nil {
            guard request.hooks.followsRedirects, RequestHooks.redirectStatuses.contains(head.status) else {
                return true
            }
            finalHead = head  // ours to follow (CurlMulti+Hooks): its body is read as an error page's, then dropped
            isRedirectHop = true
            return true
        }
        finalHead = head
        switch onHead(head) {
        case .refetchWhole(let reason):
            return abort(.refetchWhole(reason))
        case .append(let offset):
            baseOffset = offset
        case .replace, .noBody:
            baseOffset = 0
        }
        finalIsSuccess = (200..<300).contains(head.status)
        // A coded body's Content-Length counts coded bytes: it neither gives the expected size nor breaks the cap.
        let announced = head.isContentCoded ? nil : head.contentLength
        expectedLength = announced.map { baseOffset + $0 } ?? -1
        if finalIsSuccess, let limit = request.maxBodySize, let length = announced, baseOffset + length > limit {
            return abort(.tooLarge(size: baseOffset + length, limit: limit))
        }
        return true
    }

    /// When the last byte (of head or body) arrived, or the transfer started; ``CoarseClock`` nanoseconds.
    @exclusivity(unchecked) var lastActivity: UInt64 = CoarseClock.now()

    /// Called by libcurl's progress callback (at least once a second while the transfer lives): fails a transfer
    /// that has received nothing for `stallTimeout` seconds. libcurl's own LOW_SPEED check averages the speed
    /// over several seconds, so after a fast start it notices a stall only 5–6 s late.
    func checkStall(now: UInt64 = CoarseClock.now()) -> Bool {
        let limit = request.stallTimeout
        guard limit > 0, now > lastActivity, Double(now - lastActivity) / 1e9 > limit else { return true }
        return abort(.curl(code: CurlCode.timedOut, message: String(format: "stalled: no data for %.0f s", limit)))
    }

    /// Called by libcurl for each body chunk; returning fewer bytes than given aborts the transfer.
    func didReceiveBody(_ chunk: UnsafeRawBufferPointer) -> Int {
        if cancelRequested.value { return abort(.cancelled) ? chunk.count : 0 }
        lastActivity = CoarseClock.now()
        received += Int64(chunk.count)
        guard finalIsSuccess else {
            // An error page: its status is what matters. Read a little (to keep the connection), then stop.
            if received > Self.errorBodyAllowance { errorBodyDiscarded = true; return 0 }
            return chunk.count
        }
        if let limit = request.maxBodySize, baseOffset + received > limit {
            // libcurl 7.88.1's MAXFILESIZE only stops transfers whose size is announced: enforce the cap here.
            return abort(.tooLarge(size: baseOffset + received, limit: limit)) ? chunk.count : 0
        }
        guard onData(chunk) else { return abort(.rejected("body refused")) ? chunk.count : 0 }
        onProgress(baseOffset + received, expectedLength)
        return chunk.count
    }

    /// Bytes of a non-2xx body read before the transfer is stopped.
    static let errorBodyAllowance: Int64 = 64 * 1024
    /// The transfer was stopped because a non-2xx body was too long to bother with; the status stands.
    @exclusivity(unchecked) private(set) var errorBodyDiscarded = false

    /// Records why the transfer is being stopped; always returns false so callers can `return abort(...)`.
    private func abort(_ reason: TransferFailure) -> Bool {
        if abortReason == nil { abortReason = reason }
        return false
    }

    /// The address the connection policy refused last (engine thread). libcurl may go on to another address of
    /// the host; the transfer fails with `.addressRefused` only if it then fails.
    @exclusivity(unchecked) private(set) var refusedAddress: String?

    /// Asks the request's connection policy about an address libcurl is about to connect to (engine thread).
    func mayConnect(to ip: [UInt8], port: Int) -> Bool {
        guard let policy = request.connectionPolicy else { return true }
        if !ip.isEmpty, policy(ip, port) { return true }
        refusedAddress = Self.text(ip)
        return false
    }

    /// `"127.0.0.1"`, `"::ffff:127.0.0.1"` (inet_ntop); `"?"` for an address family that is not IP.
    private static func text(_ ip: [UInt8]) -> String {
        guard ip.count == 4 || ip.count == 16 else { return "?" }
        var buffer = [CChar](repeating: 0, count: 64)
        _ = inet_ntop(ip.count == 4 ? AF_INET : AF_INET6, ip, &buffer, socklen_t(buffer.count))
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Starts a hop (engine thread): the request to send, and the per-response state cleared.
    func beginHop(_ request: TransferRequest) {
        current = request
        pendingHead = DWResponseHead()
        finalHead = nil
        finalIsSuccess = false
        expectedLength = -1
        received = 0
        abortReason = nil
        baseOffset = 0
        errorBodyDiscarded = false
        refusedAddress = nil
        isRedirectHop = false
        lastActivity = CoarseClock.now()
    }

    /// Runs `body` unless the transfer has completed, excluding completion meanwhile (a loader's callbacks, from
    /// its own task); nil when it had completed.
    func whileLive<T>(_ body: () -> T) -> T? {
        completed.withLock { done in done ? nil : body() }
    }

    /// Delivers the outcome once, from any thread; later calls are ignored.
    func complete(_ result: Result<TransferResult, TransferFailure>) {
        let first = completed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { onComplete(result) }
    }
}
