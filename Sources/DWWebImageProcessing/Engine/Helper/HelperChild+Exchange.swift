// HelperChild+Exchange: the one exchange with a helper — its input sent, its answer record read, in one poll loop
// on the calling thread that kills the helper past its CPU budget or wall limit, or when the work is stopped.
internal import CVips
import DWWebImage
import Foundation

extension HelperChild {
    /// What stops a helper before it answers.
    struct Watch {
        /// CPU seconds (every thread, user and system) the helper may spend; nil: no budget.
        var cpuBudget: Double?
        /// Seconds of wall time the helper may take, whatever it waits for.
        var wallLimit: Double
        /// The work whose stop kills the helper (``DWWorkCancellation/current`` of the calling thread by default).
        var cancellation: DWWorkCancellation? = DWWorkCancellation.current
    }

    /// How the exchange ended.
    enum Outcome {
        /// The answer's header words and its payload, which the caller deallocates.
        case answer(HelperRecord.Header, UnsafeMutableRawBufferPointer)
        /// The helper's failure record, as an error (codes taken as ``HelperRecord/failureError(_:)`` says).
        case failure(DWWebImageError)
        /// Killed past the CPU budget, after this many CPU seconds.
        case overBudget(Double)
        /// Killed past the wall limit.
        case overWallLimit
        /// Killed because the work was stopped.
        case stopped
        /// No usable answer, for this reason (the helper is killed if it still runs).
        case broken(String)
    }

    /// Sends `input` (then shuts our writing side; at once when it is empty) and reads `job`'s answer record,
    /// whose payload is as many bytes as `payloadBytes` accepts for its header (a refused header, or more bytes
    /// than that, is `broken` and the helper killed). Polls every 20 ms for `watch`: past it the helper is killed.
    mutating func exchange(
        _ input: Data, watch: Watch,
        payloadBytes: @escaping (HelperRecord.Header) -> Result<Int, HelperRecord.Refusal>
    ) -> Outcome {
        let started = ContinuousClock.now
        var reader = HelperAnswerReader(record: job.record, payloadBytes: payloadBytes)
        var written = 0
        if input.isEmpty { shutdown(socket, Int32(SHUT_WR)) }
        while true {
            let want = Int16(POLLIN) | (written < input.count ? Int16(POLLOUT) : 0)
            var poller = pollfd(fd: socket, events: want, revents: 0)
            if poll(&poller, 1, 20) > 0 {
                if poller.revents & Int16(POLLOUT) != 0, written < input.count {
                    written = sendMore(input, from: written)
                }
                if poller.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                    switch reader.read(socket) {
                    case .more: break
                    case .done(let outcome): return outcome
                    case .refused(let reason):
                        kill(pid, SIGKILL)
                        return .broken(reason)
                    }
                }
            }
            if let stop = stop(watch, since: started) {
                kill(pid, SIGKILL)
                reader.discard()
                return stop
            }
        }
    }

    /// The error a `broken` outcome is, given how the helper ended: 10005 when a CPU-limited helper was killed by
    /// SIGXCPU or SIGKILL (it spent its CPU), else 10000; "SVG helper was killed by signal 9: no answer".
    func brokenError(_ reason: String, status: Status) -> DWWebImageError {
        let spent = job.isCPULimited && (status.signalled == SIGXCPU || status.signalled == SIGKILL)
        return DWWebImageError(spent ? .tooLarge : .notAnImage, "\(job.name) \(status.description): \(reason)")
    }

    /// Sends what the socket takes of `input` after `written` bytes; the new count. Our writing side is shut once
    /// all is sent, or when the helper stopped reading.
    private func sendMore(_ input: Data, from written: Int) -> Int {
        let n = input.withUnsafeBytes {
            send(socket, $0.baseAddress! + written, min(input.count - written, 1 << 20), Int32(MSG_NOSIGNAL))
        }
        let now = n > 0 ? written + n : errno != EAGAIN && errno != EINTR ? input.count : written
        if now == input.count { shutdown(socket, Int32(SHUT_WR)) }
        return now
    }

    /// Whether `watch` stops the helper now, and how.
    private func stop(_ watch: Watch, since started: ContinuousClock.Instant) -> Outcome? {
        if watch.cancellation?.isCancelled ?? false { return .stopped }
        if let budget = watch.cpuBudget {
            let cpu = cpuSeconds()
            if cpu > budget { return .overBudget(cpu) }
        }
        return ContinuousClock.now - started > .seconds(watch.wallLimit) ? .overWallLimit : nil
    }
}

/// Reads one answer record from a helper's socket as it arrives: the header into `head`, then the payload straight
/// into its own buffer. Not shared: one exchange's, on its thread.
struct HelperAnswerReader {
    /// What one read did.
    enum Step {
        case more
        case done(HelperChild.Outcome)
        /// The answer is refused for this reason: the helper is to be killed.
        case refused(String)
    }

    let record: HelperRecord
    let payloadBytes: (HelperRecord.Header) -> Result<Int, HelperRecord.Refusal>
    private var head: [UInt8] = []
    private var header: HelperRecord.Header?
    private var payload: UnsafeMutableRawBufferPointer?
    private var filled = 0
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    init(record: HelperRecord, payloadBytes: @escaping (HelperRecord.Header) -> Result<Int, HelperRecord.Refusal>) {
        (self.record, self.payloadBytes) = (record, payloadBytes)
    }

    /// Reads what `socket` has.
    mutating func read(_ socket: Int32) -> Step {
        if let payload {
            guard filled < payload.count else { return finish(socket) }
            let n = recv(socket, payload.baseAddress! + filled, payload.count - filled, 0)
            guard n > 0 else { return ended(n) }
            filled += n
            return filled == payload.count ? finish(socket) : .more
        }
        let n = recv(socket, &chunk, chunk.count, 0)
        guard n > 0 else { return ended(n) }
        if head.count < 1 << 16 { head += chunk[..<n] }
        guard head.count >= HelperRecord.headerSize, head.starts(with: record.answerMagic) else { return .more }
        return start(socket)
    }

    /// Frees the payload read so far.
    mutating func discard() {
        payload?.deallocate()
        payload = nil
    }

    /// The header is in: the payload's buffer, with the bytes already read after the header.
    private mutating func start(_ socket: Int32) -> Step {
        let header = HelperRecord.header(head)
        let count: Int
        switch payloadBytes(header) {
        case .success(let bytes): count = bytes
        case .failure(let refusal): return .refused(refusal.reason)
        }
        guard head.count - HelperRecord.headerSize <= count else {
            return .refused("an answer longer than its header says")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        head[HelperRecord.headerSize...].withUnsafeBytes { buffer.copyMemory(from: $0) }
        (self.header, payload, filled, head) = (header, buffer, head.count - HelperRecord.headerSize, [])
        return filled == count ? finish(socket) : .more
    }

    /// The payload is whole: the end of the helper's output must follow (or nothing yet, as it exits).
    private mutating func finish(_ socket: Int32) -> Step {
        guard recv(socket, &chunk, 1, 0) <= 0, let header, let payload else {
            discard()
            return .refused("an answer longer than its header says")
        }
        self.payload = nil
        return .done(.answer(header, payload))
    }

    /// The socket ended (`n` is 0) or failed, or it had nothing yet (EAGAIN, EINTR).
    private mutating func ended(_ n: Int) -> Step {
        if n < 0, errno == EAGAIN || errno == EINTR { return .more }
        if payload != nil {
            discard()
            return .done(.broken("the answer stopped short"))
        }
        if head.count >= HelperRecord.headerSize, head.starts(with: record.failureMagic) {
            return .done(.failure(HelperRecord.failureError(head)))
        }
        return .done(.broken("no answer"))
    }
}
