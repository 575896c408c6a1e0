// DWIdleEncoder: the encode helper — a put-off AVIF or JPEG XL encode saved in a process of its own at SCHED_IDLE,
// so that it only gets CPU no other process wants. Started by the engine (IdleEncodeProcess), from dwfetch-svg.
internal import CVips
import DWWebImage
import Foundation

/// The encode helper process. A server's put-off encode (``DWEncodeGate/inIdleHelper(report:)``) renders its canvas in
/// the server, then the helper saves it: the helper is started at `SCHED_IDLE` (or, where the kernel refuses that to
/// the server, puts itself there, else at nice 19) before libvips starts any thread, so every thread of the encode
/// (libvips' pool, libaom's workers) inherits it and runs only on CPU nothing else wants. It reads the saver's input as
/// a libvips `.v` file on descriptor 3, writes the encoded bytes (and the saver's time and its scheduling policy) to
/// standard output, and dies with its parent. Like the SVG helper it runs under `PR_SET_NO_NEW_PRIVS` with no core
/// files (`RLIMIT_CORE` 0: a crash in libaom or libjxl leaves no image data on disk), but with no `RLIMIT_AS` and no
/// `RLIMIT_CPU`: its input is the server's own canvas, already within the pixel limit, not untrusted bytes; what an
/// AV1 or JPEG XL encoder maps grows with its threads, effort and glibc's per-thread arenas in ways no fixed limit
/// tracks without failing large legitimate encodes; and its wall time is bounded by ``IdleEncodeProcess/wallLimit``.
/// It is ``DWHelperProcess``'s executable (`dwfetch-svg`, the SVG helper's too), started with ``helperArgument``: an
/// executable named there (``DWHelperProcess/path``) must call ``runHelper(_:)`` first when
/// ``isHelperInvocation(_:)``, else a put-off encode fails (counted, and tried again by a later request).
public enum DWIdleEncoder {
    /// The first argument that makes an executable the encode helper (``runHelper(_:)``).
    public static let helperArgument = "--dwwebimage-idle-encode"

    /// Whether `arguments` (a `main`'s `CommandLine.arguments`) start the encode helper.
    public static func isHelperInvocation(_ arguments: [String] = CommandLine.arguments) -> Bool {
        HelperJob.idleEncode.isInvocation(arguments)
    }

    /// The encode helper's whole run, for a `main` that ``isHelperInvocation(_:)``: lowers its own scheduling, loads
    /// descriptor 3's `.v` image, saves it as asked and writes the answer record to standard output. Returns the
    /// exit status. Runs on the calling (main) thread.
    public static func runHelper(_ arguments: [String] = CommandLine.arguments) -> Int32 {
        HelperJob.idleEncode.runChild { () throws(DWWebImageError) -> Int32 in
            let policy = IdleEncodeProcess.Policy(rawValue: Int(cvips_schedule_idle())) ?? .normal
            let request = try IdleEncodeProcess.Request(arguments: Array(arguments.dropFirst(2)))
            try Vips.start()
            cvips_concurrency_set(request.threads)
            cvips_operation_block_set("VipsForeignLoadVips", 0)  // here only: the parent's own `.v` file
            let image = try Vips.make("cannot read the image to encode") { cvips_vipsload("/proc/self/fd/3", $0) }
            let clock = ContinuousClock()
            let (start, startCPU) = (clock.now, cpuTime())
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            guard
                cvips_save_buffer(
                    request.saver, image.pointer, request.quality, request.effort, request.strip, request.interlace,
                    request.palette, &buffer, &length) == 0, let buffer
            else {
                throw Vips.error("cannot encode")
            }
            defer { cvips_free(buffer) }
            // The cost learned: the saver's wall time, or its CPU time (every thread) when that is less — at
            // SCHED_IDLE on a busy machine the wall time is mostly waiting, which no foreground encode would do.
            let time = min(clock.now - start, cpuTime() - startCPU)
            let nanoseconds =
                Int(time.components.seconds) * 1_000_000_000 + Int(time.components.attoseconds / 1_000_000_000)
            return HelperJob.writeAnswer(
                HelperRecord.encodedBytes.answer(
                    HelperRecord.Header(first: nanoseconds, second: policy.rawValue, third: length)),
                UnsafeRawBufferPointer(start: buffer, count: length))
        }
    }

    /// This process's CPU time, every thread, user and system.
    private static func cpuTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
