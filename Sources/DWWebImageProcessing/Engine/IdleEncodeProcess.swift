// IdleEncodeProcess: one still image saved by the encode helper (DWIdleEncoder) at SCHED_IDLE — the saver's input
// handed over as a libvips `.v` file, the encoded bytes read back; the process itself is HelperChild's.
internal import CVips
import DWWebImage
import Foundation

/// Runs one save in the helper and returns its bytes. The calling thread does the whole exchange: it writes the
/// image (every pixel and metadata field) to a private `.v` file, starts the helper with that file as descriptor 3,
/// and reads the answer from a socket (``HelperChild/exchange(_:watch:payloadBytes:)``). The answer is
/// ``HelperRecord/encodedBytes``: the saver's time in nanoseconds (its wall time, or its CPU time when less), the
/// ``Policy`` it ran under and the byte count, then the bytes. It kills the helper (SIGKILL) when the work is stopped
/// (``DWWorkCancellation/current``: throws 10007) or after ``wallLimit`` (a helper starved of idle CPU for that long
/// is given up: 10005).
enum IdleEncodeProcess {
    /// What the helper is asked to do (its arguments after ``DWIdleEncoder/helperArgument``): libvips' saver and
    /// its settings, as ``Encoder/SaverCall`` has them, and libvips' threads per image.
    struct Request {
        var saver, quality, effort, strip, interlace, palette, threads: Int32

        init(_ call: Encoder.SaverCall, threads: Int) {
            (saver, quality, effort, strip) = (call.saver, call.quality, call.effort, call.strip)
            (interlace, palette, self.threads) = (call.interlace, call.palette, Int32(threads))
        }

        init(arguments: [String]) throws(DWWebImageError) {
            let values = arguments.compactMap { Int32($0) }
            guard arguments.count == 7, values.count == 7, values[6] > 0 else {
                throw .malformed("encode helper", "unusable arguments \(arguments)")
            }
            (saver, quality, effort, strip) = (values[0], values[1], values[2], values[3])
            (interlace, palette, threads) = (values[4], values[5], values[6])
        }

        var arguments: [String] { [saver, quality, effort, strip, interlace, palette, threads].map { String($0) } }
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
        let helper = try DWHelperProcess.locate(for: .idleEncode)
        let file = try handOver(call.image)
        defer { close(file) }
        if DWWorkCancellation.current?.isCancelled ?? false { throw DWWorkCancellation.stopped }
        let arguments = Request(call, threads: DWImageProcessing.threadsPerTransform).arguments
        // Started at SCHED_IDLE (its loading and start-up too); where the kernel refuses that, as the server runs,
        // and the helper lowers itself as it can.
        var child: HelperChild
        if let idle = try? HelperChild(.idleEncode, helper, arguments: arguments, file: file, idle: true) {
            child = idle
        } else {
            child = try HelperChild(.idleEncode, helper, arguments: arguments, file: file)
        }
        let outcome = child.exchange(Data(), watch: HelperChild.Watch(wallLimit: wallLimit), payloadBytes: answerBytes)
        let status = child.reap()
        let saved: Saved
        switch outcome {
        case .answer(let header, let buffer):
            let data = Data(
                bytesNoCopy: buffer.baseAddress!, count: buffer.count,
                deallocator: .custom { pointer, _ in pointer.deallocate() })
            saved = Saved(
                data: data, time: .nanoseconds(header.first), policy: Policy(rawValue: header.second) ?? .normal)
        case .failure(let error): throw error
        case .stopped: throw DWWorkCancellation.stopped
        case .overBudget, .overWallLimit: throw .stopped("the encode helper", after: "\(wallLimit) s")
        case .broken(let reason): throw child.brokenError(reason, status: status)
        }
        guard (try? DWImage(data: saved.data, maxPixelCount: .max))?.format == format else {
            throw .malformed("encode helper", "its answer does not read back as \(format.rawValue)")
        }
        return saved
    }

    /// The payload of an answer whose header is `header` (nanoseconds, policy, byte count): its byte count, up to
    /// ``maxBytes``.
    private static func answerBytes(_ header: HelperRecord.Header) -> Result<Int, HelperRecord.Refusal> {
        guard header.first >= 0, Policy(rawValue: header.second) != nil, (0...maxBytes).contains(header.third) else {
            return .failure(HelperRecord.Refusal(reason: "a broken answer"))
        }
        return .success(header.third)
    }

    /// `image` written to a new private `.v` file (libvips' own format: every pixel and metadata field), opened for
    /// reading and unlinked: the descriptor is the only way left to it.
    private static func handOver(_ image: VImage) throws(DWWebImageError) -> Int32 {
        let path = NSTemporaryDirectory() + "/dwencode-\(UUID().uuidString).v"
        let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard created >= 0 else {
            throw .failed("cannot hand the encode over", reason: String(cString: strerror(errno)))
        }
        close(created)
        defer { unlink(path) }
        guard cvips_vipssave(image.pointer, path) == 0 else { throw Vips.error("cannot hand the encode over") }
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { throw .failed("cannot hand the encode over", reason: String(cString: strerror(errno))) }
        return file
    }
}
