// IdleEncodeProcess: one still image saved by the encode helper (DWIdleEncoder) at SCHED_IDLE — the saver's input
// handed over as a libvips `.v` file, the encoded bytes read back.
internal import CVips
import DWWebImage
import Foundation

/// Runs one save in the helper and returns its bytes. The calling thread does the whole exchange: it writes the
/// image (every pixel and metadata field) to a private `.v` file, starts the helper with that file as descriptor 3,
/// and reads the answer from a socket in a poll loop. It kills the helper (SIGKILL) when the work is stopped
/// (``DWWorkCancellation/current``: throws 10007) or after ``wallLimit`` (a helper starved of idle CPU for that long
/// is given up: 10005).
enum IdleEncodeProcess {
    /// What the helper is asked to do (its arguments after ``DWIdleEncoder/helperArgument``): libvips' saver and
    /// its settings, as ``Encoder/SaverCall`` has them, and libvips' threads per image.
    struct Request: Equatable {
        var saver, quality, effort, strip, interlace, palette, threads: Int32

        init(_ call: Encoder.SaverCall, threads: Int) {
            (saver, quality, effort, strip) = (call.saver, call.quality, call.effort, call.strip)
            (interlace, palette, self.threads) = (call.interlace, call.palette, Int32(threads))
        }

        init(arguments: [String]) throws(DWWebImageError) {
            let values = arguments.compactMap { Int32($0) }
            guard arguments.count == 7, values.count == 7, values[6] > 0 else {
                throw DWWebImageError(.notAnImage, "encode helper: unusable arguments \(arguments)")
            }
            (saver, quality, effort, strip) = (values[0], values[1], values[2], values[3])
            (interlace, palette, threads) = (values[4], values[5], values[6])
        }

        var arguments: [String] { [saver, quality, effort, strip, interlace, palette, threads].map { String($0) } }
    }

    /// The helper's answer on its standard output: 8 bytes of magic, then three little-endian Int64s — the saver's
    /// time in nanoseconds (its wall time, or its CPU time when less), the scheduling policy it ran under
    /// (``Policy``) and the byte count, the bytes after them; or the error's code, and its message to the end.
    enum Record {
        static let bytesMagic = Array("DWENCOK1".utf8), failureMagic = Array("DWENCERR".utf8)
        static let headerSize = 32

        static func bytes(nanoseconds: Int, policy: Policy, count: Int) -> [UInt8] {
            bytesMagic + [nanoseconds, policy.rawValue, count].flatMap { Self.bytes(Int64($0)) }
        }

        static func failure(_ error: DWWebImageError) -> [UInt8] {
            failureMagic + bytes(Int64(error.code.rawValue)) + bytes(0) + bytes(0)
                + Array(error.message.utf8.prefix(4000))
        }

        private static func bytes(_ value: Int64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
    }

    /// The scheduling the helper put itself under before libvips started any thread (every thread it makes
    /// inherits it): SCHED_IDLE, else nice 19 (where SCHED_IDLE is refused), else the parent's own.
    enum Policy: Int, Sendable {
        case idle = 0, nice = 1, normal = 2

        /// The name a server reports (`idle`, `nice`, `normal`).
        var name: String { self == .idle ? "idle" : self == .nice ? "nice" : "normal" }
    }

    /// What one save in the helper gave: the encoded bytes, the saver's own time in the helper, and its scheduling.
    struct Saved {
        let data: Data
        let time: Duration
        let policy: Policy
    }

    /// Seconds a helper may take, whatever it waited for: at SCHED_IDLE on a machine that is never idle it could
    /// wait for ever.
    static let wallLimit: Double = 300
    /// The largest answer accepted.
    static let maxBytes = 1 << 30

    /// `call` saved by the helper, its bytes checked to read back as `format`.
    static func save(_ call: Encoder.SaverCall, format: DWImageFormat) throws(DWWebImageError) -> Saved {
        let helper = try DWSVGRenderer.resolvedHelper()
        let file = try handOver(call.image)
        defer { close(file) }
        if DWWorkCancellation.current?.isCancelled ?? false { throw DWWorkCancellation.stopped }
        let request = Request(call, threads: DWImageProcessing.threadsPerTransform)
        // Started at SCHED_IDLE (its loading and start-up too); where the kernel refuses that, as the server runs,
        // and the helper lowers itself as it can.
        let arguments = [DWIdleEncoder.helperArgument] + request.arguments
        var child: HelperChild
        if let idle = try? HelperChild(helper, arguments: arguments, file: file, idle: true) {
            child = idle
        } else {
            child = try HelperChild(helper, arguments: arguments, file: file)
        }
        let outcome = child.readAnswer(wallLimit: wallLimit, maxBytes: maxBytes + Record.headerSize)
        let status = child.reap()
        let answer: [UInt8]
        switch outcome {
        case .answer(let bytes): answer = bytes
        case .stopped: throw DWWorkCancellation.stopped
        case .overWallLimit: throw DWWebImageError(.tooLarge, "the encode helper was stopped after \(wallLimit) s")
        case .broken(let reason): throw DWWebImageError(.notAnImage, "encode helper \(status.description): \(reason)")
        }
        let saved = try parse(answer, status: status)
        guard (try? DWImage(data: saved.data, maxPixelCount: .max))?.format == format else {
            throw DWWebImageError(.notAnImage, "the encode helper's answer does not read back as \(format.rawValue)")
        }
        return saved
    }

    /// `image` written to a new private `.v` file (libvips' own format: every pixel and metadata field), opened for
    /// reading and unlinked: the descriptor is the only way left to it.
    private static func handOver(_ image: VImage) throws(DWWebImageError) -> Int32 {
        let path = NSTemporaryDirectory() + "/dwencode-\(UUID().uuidString).v"
        let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard created >= 0 else {
            throw DWWebImageError(.notAnImage, "cannot hand the encode over: \(String(cString: strerror(errno)))")
        }
        close(created)
        defer { unlink(path) }
        guard cvips_vipssave(image.pointer, path) == 0 else { throw Vips.error("cannot hand the encode over") }
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
            throw DWWebImageError(.notAnImage, "cannot hand the encode over: \(String(cString: strerror(errno)))")
        }
        return file
    }

    private static func parse(_ answer: [UInt8], status: HelperChild.Status) throws(DWWebImageError) -> Saved {
        let int = SVGRenderProcess.Record.int
        guard answer.count >= Record.headerSize else {
            throw DWWebImageError(.notAnImage, "encode helper \(status.description): no answer")
        }
        if answer.starts(with: Record.failureMagic) {
            let code = DWWebImageError.Code(rawValue: int(answer, 8)) ?? .notAnImage
            throw DWWebImageError(code, String(decoding: answer[Record.headerSize...], as: UTF8.self))
        }
        let (nanoseconds, policy, count) = (int(answer, 8), int(answer, 16), int(answer, 24))
        guard answer.starts(with: Record.bytesMagic), count == answer.count - Record.headerSize, nanoseconds >= 0,
            let policy = Policy(rawValue: policy)
        else {
            throw DWWebImageError(.notAnImage, "encode helper \(status.description): a broken answer")
        }
        return Saved(
            data: Data(answer[Record.headerSize...]), time: .nanoseconds(nanoseconds), policy: policy)
    }
}

extension HelperChild {
    /// How reading a helper's answer ended.
    enum Answer {
        case answer([UInt8])
        case stopped
        case overWallLimit
        case broken(String)
    }

    /// Reads the helper's whole answer (to the end of its output), at most `maxBytes`; kills it when the work is
    /// stopped or after `wallLimit` seconds. Nothing is sent: our writing side is shut first.
    func readAnswer(wallLimit: Double, maxBytes: Int) -> Answer {
        shutdown(socket, Int32(SHUT_WR))
        let started = ContinuousClock.now
        let cancellation = DWWorkCancellation.current
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 20) > 0 {
                let n = recv(socket, &chunk, chunk.count, 0)
                if n == 0 { return .answer(answer) }
                if n > 0 { answer += chunk[..<n] }
                if n < 0, errno != EAGAIN, errno != EINTR { return .broken(String(cString: strerror(errno))) }
                if answer.count > maxBytes {
                    kill(pid, SIGKILL)
                    return .broken("an answer over \(maxBytes) bytes")
                }
            }
            if cancellation?.isCancelled ?? false {
                kill(pid, SIGKILL)
                return .stopped
            }
            if ContinuousClock.now - started > .seconds(wallLimit) {
                kill(pid, SIGKILL)
                return .overWallLimit
            }
        }
    }
}
