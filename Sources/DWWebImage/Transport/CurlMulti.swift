// CurlMulti: one libcurl multi handle driven by one thread (curl_multi_poll, woken by curl_multi_wakeup).
import Foundation
import DWLocking
internal import CCurlShim

/// The transfer engine: one `CURLM` and one thread that owns it and every easy handle.
///
/// Other threads talk to it only through ``submit(_:)`` and ``cancel(_:)``, which put work in a locked inbox
/// and call `curl_multi_wakeup`. The loop is `curl_multi_perform` → drain `curl_multi_info_read` → `curl_multi_poll`.
/// If libcurl reports a multi-level failure (out of memory, a broken wakeup pipe), the transfers in flight fail
/// with it and the loop backs off before it tries again, so a persistent failure never spins a core.
/// Easy handles are reused (keeping their options for a like transfer, see
/// ``TransferRequest/setsSameHandleOptions(as:)``; reset for another), and all transfers share the multi handle's
/// connection pool, so connections to a host are kept alive and reused across transfers.
final class CurlMulti: @unchecked Sendable {
    // @unchecked: `multi`, `active` and `idleHandles` are touched only on the engine thread (`run`), except
    // `curl_multi_wakeup(multi)`, which libcurl documents as callable from any thread. Cross-thread requests go
    // through `inbox`, a DWLock.

    private struct Inbox {
        var adds: [(CurlTransfer, TransferRequest)] = []
        var cancels: [CurlTransfer] = []
        var shuttingDown = false
        /// The engine thread, set by `run` before its first turn.
        var engine: pthread_t?
        /// `adds` holds work the engine thread queued itself (a completion starting the next transfer): no wakeup
        /// was sent for it, so the loop looks here before it polls.
        var addedOnEngine = false
    }

    private let multi: UnsafeMutableRawPointer
    private let inbox = DWLock(Inbox())
    private let stopped = DispatchSemaphore(value: 0)
    // `active`, `idleHandles` and `failures` are `@exclusivity(unchecked)`: only the engine thread touches them
    // (above), one access at a time, and the runtime's dynamic check cost ~65 instructions an access, ~7 a transfer.
    @exclusivity(unchecked) private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// Handles whose transfer succeeded, with the request their options were set for (they keep them).
    @exclusivity(unchecked)
    private var idleHandles: [(easy: UnsafeMutableRawPointer, configuredFor: TransferRequest)] = []

    /// The most transfers ever in flight at once.
    let maxActiveCount = DWLock(0)

    init(name: String = "DWWebImage.CurlMulti") {
        CurlGlobal.initialize()
        guard let handle = dw_curl_multi_init() else {
            // libcurl is opened here, by the first transfer (CCurlShim); without it no transfer can be made.
            let reason = dw_curl_load_error().map { "cannot load libcurl: " + String(cString: $0) }
            fatalError(reason ?? "curl_multi_init failed")
        }
        multi = handle
        // Keep enough idle connections around for the whole window of concurrent transfers (libcurl's default is
        // 4 × the handles added; a refusal only costs reconnects, so it is logged, not fatal).
        let maxConnects = dw_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 32)
        if maxConnects != CURLM_OK {
            DWLog.warning("curl multi: MAXCONNECTS refused: \(String(cString: dw_curl_multi_strerror(maxConnects)))")
        }
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Queues a transfer; its callbacks start on the engine thread. With request modifiers, they run first
    /// (CurlMulti+Hooks).
    func submit(_ transfer: CurlTransfer) {
        if let loader = transfer.request.loader {
            load(transfer, with: loader)
        } else if transfer.request.hooks.modifiers.isEmpty {
            enqueue(transfer, transfer.request)
        } else {
            modifyThenEnqueue(transfer)
        }
    }

    /// Hands one hop of a transfer (`request`: what to send) to the engine thread.
    /// From the engine thread itself (a transfer's completion starting the next one) there is no wakeup: the
    /// loop takes the work before it polls, which saves a socketpair write, its read and a poll turn per transfer.
    func enqueue(_ transfer: CurlTransfer, _ request: TransferRequest) {
        let wake = inbox.withLock { box -> Bool? in
            guard !box.shuttingDown else { return nil }
            box.adds.append((transfer, request))
            if let engine = box.engine, pthread_equal(engine, pthread_self()) != 0 {
                box.addedOnEngine = true
                return false
            }
            return true
        }
        switch wake {
        case true?: dw_curl_multi_wakeup(multi)
        case false?: break
        case nil: transfer.complete(.failure(.cancelled))
        }
    }

    /// Whether the calling thread is the engine thread (a transfer's completion running there can start the next
    /// transfer in place: see ``DWWebImageManager``'s `schedule`). Any thread.
    var isEngineThread: Bool {
        inbox.withLock { box in box.engine.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Stops a transfer (queued or running); it completes with `.cancelled` unless it already finished.
    func cancel(_ transfer: CurlTransfer) {
        transfer.cancelRequested.value = true
        transfer.hookTask.value?.cancel()
        inbox.withLock { $0.cancels.append(transfer) }
        dw_curl_multi_wakeup(multi)
    }

    /// Cancels everything, stops the thread and frees libcurl's handles. Blocks until the thread has ended.
    func shutdown() {
        let first = inbox.withLock { box -> Bool in
            defer { box.shuttingDown = true }
            return !box.shuttingDown
        }
        guard first else { return }
        dw_curl_multi_wakeup(multi)
        stopped.wait()
        dw_curl_multi_cleanup(multi)
    }

    // MARK: - Engine thread

    private func run() {
        var running: Int32 = 0
        inbox.withLock { $0.engine = pthread_self() }
        while true {
            let work = inbox.withLock { box -> Inbox in
                defer {
                    box.adds.removeAll()
                    box.cancels.removeAll()
                    box.addedOnEngine = false
                }
                return box
            }
            for (transfer, request) in work.adds {
                DWHopTrace.arrive("engine thread")
                start(transfer, request)
            }
            for transfer in work.cancels { stop(transfer, with: .cancelled) }
            if work.shuttingDown {
                for transfer in Array(active.values) { stop(transfer, with: .cancelled) }
                for handle in idleHandles { dw_curl_easy_cleanup(handle.easy) }
                idleHandles.removeAll()
                stopped.signal()
                return
            }
            let performed = dw_curl_multi_perform(multi, &running)
            drainMessages()
            // Transfers the completions above queued on this thread sent no wakeup: start them before polling.
            if performed == CURLM_OK, inbox.withLock({ $0.addedOnEngine }) { continue }
            let polled = performed == CURLM_OK ? dw_curl_multi_poll(multi, nil, 0, 1000, nil) : performed
            if polled == CURLM_OK {
                failures = 0
                continue
            }
            // curl_multi_perform or curl_multi_poll failed: poll returned at once, so looping now would spin.
            let message = "curl multi: \(String(cString: dw_curl_multi_strerror(polled)))"
            DWLog.warning(message)
            for transfer in Array(active.values) {
                stop(transfer, with: .curl(code: Int(polled.rawValue), message: message))
            }
            failures += 1
            usleep(useconds_t(min(1_000_000, 1_000 << min(failures, 10))))  // 2 ms, doubling, at most 1 s
        }
    }

    /// Consecutive failed loop turns (engine thread).
    @exclusivity(unchecked) private var failures = 0

    private func start(_ transfer: CurlTransfer, _ request: TransferRequest) {
        transfer.beginHop(request)
        if transfer.cancelRequested.value {
            transfer.complete(.failure(.cancelled))
            return
        }
        let easy: UnsafeMutableRawPointer
        switch configuredHandle(for: transfer) {
        case .success(let handle): easy = handle
        case .failure(let failure):
            transfer.complete(.failure(failure))
            return
        }
        let code = dw_curl_multi_add_handle(multi, easy)
        guard code == CURLM_OK else {
            recycle(easy, transfer, reusable: false)
            let message = String(cString: dw_curl_multi_strerror(code))
            transfer.complete(.failure(.curl(code: Int(code.rawValue), message: message)))
            return
        }
        active[easy] = transfer
        let count = active.count
        maxActiveCount.withLock { $0 = max($0, count) }
    }

    /// An easy handle with every option of `transfer` set: a pooled one, or a new one when the pool is empty or the
    /// pooled handle refuses an option (a handle is pooled only after a transfer that succeeded, but libcurl keeps
    /// state across `curl_easy_reset` that no reset clears, so a refusal on a pooled handle is never the URL's fault
    /// until a new handle refuses it too). The failure is the new handle's.
    ///
    /// A pooled handle whose options suit the transfer keeps them (``TransferRequest/setsSameHandleOptions(as:)``);
    /// another is reset first.
    private func configuredHandle(for transfer: CurlTransfer) -> Result<UnsafeMutableRawPointer, TransferFailure> {
        if let pooled = idleHandles.popLast() {
            transfer.easy = pooled.easy
            let kept = transfer.current.setsSameHandleOptions(as: pooled.configuredFor)
            if !kept { dw_curl_easy_reset(pooled.easy) }
            if configure(pooled.easy, for: transfer, optionsKept: kept) == nil { return .success(pooled.easy) }
            recycle(pooled.easy, transfer, reusable: false)
        }
        guard let easy = dw_curl_easy_init() else {
            return .failure(.curl(code: CurlCode.outOfMemory, message: "curl_easy_init failed"))
        }
        transfer.easy = easy
        if let failure = configure(easy, for: transfer, optionsKept: false) {
            recycle(easy, transfer, reusable: false)
            return .failure(failure)
        }
        return .success(easy)
    }

    /// Sets every option of a transfer (with `optionsKept`, the handle already has those a like request sets: only
    /// the transfer's own); returns a failure if libcurl refuses one (e.g. an unusable URL).
    private func configure(
        _ easy: UnsafeMutableRawPointer, for transfer: CurlTransfer, optionsKept: Bool
    ) -> TransferFailure? {
        let r = transfer.current
        var failure: TransferFailure?
        func check(_ code: CURLcode, _ what: String) {
            if code != CURLE_OK, failure == nil {
                failure = .curl(
                    code: Int(code.rawValue), message: "\(what): \(String(cString: dw_curl_easy_strerror(code)))")
            }
        }
        if !optionsKept { configureShape(easy, r, check) }
        let me = Unmanaged.passUnretained(transfer).toOpaque()
        // withCString: a String passed as `const char *` is copied into a new array first; this borrows its bytes.
        check(r.url.withCString { dw_curl_easy_setopt_string(easy, CURLOPT_URL, $0) }, "URL")
        if r.stallTimeout > 0 {
            transfer.lastActivity = CoarseClock.now()
            check(dw_curl_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, me), "XFERINFODATA")
        }
        // Content codings: libcurl decodes, so the size cap, the partial file, validation and the cache all see
        // the image's bytes (a gzip bomb hits the cap as it inflates; CurlTransfer ignores a coded Content-Length).
        check(
            r.acceptEncoding.withCString { dw_curl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, $0) },
            "ACCEPT_ENCODING")
        var list: UnsafeMutablePointer<curl_slist>?
        for line in r.headers { list = line.withCString { dw_curl_slist_append(list, $0) } }
        transfer.headerList = list.map { OpaquePointer($0) }
        check(dw_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list), "HTTPHEADER")
        transfer.errorBuffer[0] = 0
        check(dw_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer), "ERRORBUFFER")
        check(dw_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me), "HEADERDATA")
        check(dw_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me), "WRITEDATA")
        if r.connectionPolicy != nil {
            check(dw_curl_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, me), "OPENSOCKETDATA")
        }
        return failure
    }

    /// The options a pooled handle keeps for a like request (``TransferRequest/setsSameHandleOptions(as:)``): all
    /// but the transfer's own.
    private func configureShape(
        _ easy: UnsafeMutableRawPointer, _ r: TransferRequest, _ check: (CURLcode, String) -> Void
    ) {
        configureTarget(easy, r, check)
        // With a redirect handler the pipeline follows redirects itself, one transfer per hop (CurlMulti+Hooks).
        check(
            dw_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, r.hooks.followsRedirects ? 0 : 1), "FOLLOWLOCATION")
        check(dw_curl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, r.maxRedirects), "MAXREDIRS")
        check(dw_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        check(
            dw_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(r.connectTimeout)),
            "CONNECTTIMEOUT")
        check(dw_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(r.timeout)), "TIMEOUT")
        if r.stallTimeout > 0 {
            // Our own check (CurlTransfer.checkStall) runs in the progress callback and is exact; libcurl's
            // averaged LOW_SPEED check stays as a backstop.
            check(dw_curl_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0), "NOPROGRESS")
            check(dw_curl_easy_setopt_xferinfo_callback(easy, curlProgressCallback), "XFERINFOFUNCTION")
            check(dw_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1), "LOW_SPEED_LIMIT")
            check(
                dw_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(r.stallTimeout.rounded(.up)))),
                "LOW_SPEED_TIME")
        }
        // No CURLOPT_MAXFILESIZE_LARGE: it would also refuse long error pages; the cap is enforced in
        // CurlTransfer, against Content-Length of a 2xx response and while the body streams.
        check(dw_curl_easy_setopt_string(easy, CURLOPT_USERAGENT, r.userAgent), "USERAGENT")
        // PIPEWAIT lets an https transfer wait for a connection's ALPN to say whether it can multiplex (HTTP/2).
        // Over plain http it makes a second transfer to a busy host wait for the first *response*, which
        // serialised slow hosts (seen: a 0.5 s head delayed the next transfer by 0.5 s). So https only.
        let isHTTPS = TransferRequest.isHTTPS(r.url)
        if isHTTPS {
            check(dw_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1), "PIPEWAIT")
        }
        check(dw_curl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1), "TCP_KEEPALIVE")
        // curl's own receive buffer (100 KiB, as the curl tool sets it) instead of libcurl's 16 KiB: a typical image
        // arrives in one read and one body callback, not two or three (fewer recvfrom, poll and Swift calls).
        // Plain http only: over https, with HTTP/2 multiplexing, libcurl 7.88.1 failed 3-5 of 12 downloads sharing
        // one connection with it (TLSAndProxyTests).
        if !isHTTPS {
            check(dw_curl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, Self.receiveBufferSize), "BUFFERSIZE")
        }
        configureTLS(easy, r.tls, check)
        if let proxy = r.proxy {
            check(dw_curl_easy_setopt_string(easy, CURLOPT_PROXY, proxy), "PROXY")
        } else if !ProxyEnvironment.namesAProxy() {  // no proxy either way, without libcurl's getenv a transfer
            check(dw_curl_easy_setopt_string(easy, CURLOPT_PROXY, ""), "PROXY")
            if r.noProxy == nil { check(dw_curl_easy_setopt_string(easy, CURLOPT_NOPROXY, ""), "NOPROXY") }
        }
        if let noProxy = r.noProxy { check(dw_curl_easy_setopt_string(easy, CURLOPT_NOPROXY, noProxy), "NOPROXY") }
        if let sign = r.awsSigV4 {
            check(dw_curl_easy_setopt_aws_sigv4(easy, sign.provider, sign.userPassword), "AWS_SIGV4")
        }
        check(dw_curl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback), "HEADERFUNCTION")
        check(dw_curl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback), "WRITEFUNCTION")
        if r.connectionPolicy != nil {
            check(dw_curl_easy_setopt_opensocket_callback(easy, curlOpenSocketCallback), "OPENSOCKETFUNCTION")
        }
    }

    /// How a transfer's URL is sent: as built when ``TransferRequest/Fields/pathAsIs``, over http or https only,
    /// redirects included.
    private func configureTarget(
        _ easy: UnsafeMutableRawPointer, _ r: TransferRequest, _ check: (CURLcode, String) -> Void
    ) {
        check(dw_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"), "PROTOCOLS_STR")
        check(dw_curl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"), "REDIR_PROTOCOLS_STR")
        if r.pathAsIs { check(dw_curl_easy_setopt_long(easy, CURLOPT_PATH_AS_IS, 1), "PATH_AS_IS") }
    }

    /// The TLS options of a transfer (CA, client certificate and key, pinning, `insecure`), through `check`.
    private func configureTLS(
        _ easy: UnsafeMutableRawPointer, _ tls: DWWebImageManager.Configuration.TLS, _ check: (CURLcode, String) -> Void
    ) {
        if let file = tls.caFile { check(dw_curl_easy_setopt_string(easy, CURLOPT_CAINFO, file), "CAINFO") }
        if let dir = tls.caDirectory { check(dw_curl_easy_setopt_string(easy, CURLOPT_CAPATH, dir), "CAPATH") }
        if let cert = tls.clientCertificate {
            check(dw_curl_easy_setopt_string(easy, CURLOPT_SSLCERT, cert), "SSLCERT")
        }
        if let key = tls.clientKey { check(dw_curl_easy_setopt_string(easy, CURLOPT_SSLKEY, key), "SSLKEY") }
        if let pin = tls.pinnedPublicKey {
            check(dw_curl_easy_setopt_string(easy, CURLOPT_PINNEDPUBLICKEY, pin), "PINNEDPUBLICKEY")
        }
        if tls.insecure {
            check(dw_curl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0), "SSL_VERIFYPEER")
            check(dw_curl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0), "SSL_VERIFYHOST")
        }
    }

    private func drainMessages() {
        var left: Int32 = 0
        while true {
            let message = dw_curl_multi_info_read(multi, &left)
            guard message.found != 0 else { return }
            guard message.isDone != 0, let easy = message.easy, let transfer = active[easy] else { continue }
            finish(transfer, easy: easy, code: message.result)
        }
    }

    private func finish(_ transfer: CurlTransfer, easy: UnsafeMutableRawPointer, code: CURLcode) {
        var status = 0
        if transfer.finalHead == nil, dw_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK {
            status = 0
        }
        active[easy] = nil
        _ = dw_curl_multi_remove_handle(multi, easy)
        recycle(easy, transfer, reusable: code == CURLE_OK)

        let bodyOK = code == CURLE_OK || (transfer.errorBodyDiscarded && code == CURLE_WRITE_ERROR)
        if transfer.abortReason == nil, bodyOK, transfer.isRedirectHop, let head = transfer.finalHead {
            followRedirect(transfer, head: head)
        } else if let reason = transfer.abortReason {
            transfer.complete(.failure(reason))
        } else if code != CURLE_OK, let refused = transfer.refusedAddress {
            transfer.complete(.failure(.addressRefused(refused)))
        } else if code != CURLE_OK && !(transfer.errorBodyDiscarded && code == CURLE_WRITE_ERROR) {
            let message =
                transfer.errorBuffer[0] != 0
                ? String(cString: transfer.errorBuffer) : String(cString: dw_curl_easy_strerror(code))
            transfer.complete(.failure(.curl(code: Int(code.rawValue), message: message)))
        } else {
            var head = transfer.finalHead ?? DWResponseHead()
            if head.status == 0 { head.status = status }
            transfer.complete(.success(TransferResult(head: head, bodyBytes: transfer.received)))
        }
    }

    /// Removes a transfer that is still running (or never started) and completes it with `failure`.
    private func stop(_ transfer: CurlTransfer, with failure: TransferFailure) {
        if let easy = transfer.easy, active[easy] === transfer {
            active[easy] = nil
            _ = dw_curl_multi_remove_handle(multi, easy)
            recycle(easy, transfer, reusable: false)
        }
        transfer.complete(.failure(failure))
    }

    /// Frees the transfer's header list, then returns the easy handle to the pool, with its options and the request
    /// they were set for, when it is `reusable` (its transfer succeeded) and the pool has room; else frees it. A
    /// transfer that failed anywhere (name resolution, connect, TLS, a refused option, a cancel mid-transfer) may
    /// leave state `curl_easy_reset` keeps — libcurl 7.88 keeps the receive buffer after a resolve failure and then
    /// refuses `CURLOPT_BUFFERSIZE` on that handle for good — so its handle never goes back.
    private func recycle(_ easy: UnsafeMutableRawPointer, _ transfer: CurlTransfer, reusable: Bool) {
        if let list = transfer.headerList {
            dw_curl_slist_free_all(UnsafeMutablePointer(list))
            transfer.headerList = nil
        }
        transfer.easy = nil
        guard reusable, idleHandles.count < 64 else { return dw_curl_easy_cleanup(easy) }
        // The options stay for a transfer of the same shape (reset at reuse otherwise); the pointers to this
        // transfer's header list (freed above) and error buffer go now.
        _ = dw_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, nil)
        _ = dw_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, nil)
        idleHandles.append((easy, transfer.current))
    }

    /// Bytes libcurl reads from a connection at a time (CURLOPT_BUFFERSIZE; curl's tool uses the same).
    static let receiveBufferSize = 100 * 1024

    private static func milliseconds(_ seconds: TimeInterval) -> Int {
        seconds <= 0 ? 0 : max(1, Int((seconds * 1000).rounded()))
    }
}

/// `curl_global_init`, exactly once per process.
enum CurlGlobal {
    private static let once: Void = { _ = dw_curl_global_init(DW_CURL_GLOBAL_DEFAULT) }()
    static func initialize() { _ = once }

    /// "libcurl/7.88.1", for the default User-Agent: the version of the headers DWWebImage was built with, so that
    /// making a configuration does not open libcurl (a run answered from the cache never does; see CCurlShim).
    static var version: String { "libcurl/" + LIBCURL_VERSION }
}

// libcurl's callbacks borrow their transfer (no retain and release a call): `active` holds it for as long as libcurl
// holds its handle, and libcurl calls them only inside `curl_multi_perform` on the engine thread.
private let curlHeaderCallback: curl_write_callback = { buffer, size, count, userdata in
    guard let buffer, let userdata else { return 0 }
    let length = size * count
    return Unmanaged<CurlTransfer>.fromOpaque(userdata)._withUnsafeGuaranteedRef {
        $0.didReceiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
    }
}

private let curlProgressCallback: curl_xferinfo_callback = { userdata, _, _, _, _ in
    guard let userdata else { return 0 }
    // nonzero aborts with CURLE_ABORTED_BY_CALLBACK
    return Unmanaged<CurlTransfer>.fromOpaque(userdata)._withUnsafeGuaranteedRef { $0.checkStall() ? 0 : 1 }
}

/// Opens the socket only if the transfer's connection policy allows the address libcurl is about to connect to.
private let curlOpenSocketCallback: curl_opensocket_callback = { clientp, _, address in
    guard let clientp, let address else { return DW_CURL_SOCKET_BAD }
    var ip = [UInt8](repeating: 0, count: 16)
    var port: Int32 = 0
    let count = Int(dw_curl_sockaddr_ip(address, &ip, &port))
    let allowed = Unmanaged<CurlTransfer>.fromOpaque(clientp)._withUnsafeGuaranteedRef {
        $0.mayConnect(to: Array(ip.prefix(count)), port: Int(port))
    }
    guard allowed else { return DW_CURL_SOCKET_BAD }
    return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
}

private let curlWriteCallback: curl_write_callback = { buffer, size, count, userdata in
    guard let buffer, let userdata else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(userdata)._withUnsafeGuaranteedRef {
        $0.didReceiveBody(UnsafeRawBufferPointer(start: buffer, count: size * count))
    }
}
