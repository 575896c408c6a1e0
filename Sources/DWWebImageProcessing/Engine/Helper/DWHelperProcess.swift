// DWHelperProcess: the one helper executable (dwfetch-svg) the engine starts for work it keeps out of its own
// process — an SVG render (DWSVGRenderer) or a put-off encode (DWIdleEncoder) — where it is found, and what every
// helper does first in the child.
internal import CVips
import DWLocking
import DWWebImage
import Foundation

/// The helper executable. The engine starts one per SVG render (``DWSVGRenderer``) and one per put-off encode
/// (``DWIdleEncoder``), each with its own first argument. It is ``path`` when set, else the `DWWEBIMAGE_HELPER`
/// environment variable's, else `dwfetch-svg` beside the running executable (`/proc/self/exe`'s directory: where
/// SwiftPM builds it, beside `dwfetch`, `dwfetch-serve` and the test bundle). An executable named here must call
/// ``DWIdleEncoder/runHelper(_:)`` and ``DWSVGRenderer/runHelper(_:)`` first when their `isHelperInvocation` says
/// so. The setting is guarded by one lock; read and set from any thread.
public enum DWHelperProcess {
    /// The executable name SwiftPM builds the helper as.
    public static let executableName = "dwfetch-svg"
    /// The environment variable naming the helper when ``path`` is nil.
    public static let environmentVariable = "DWWEBIMAGE_HELPER"

    private static let settings = DWLock<String?>(nil)

    /// The helper executable; nil (default): `DWWEBIMAGE_HELPER`, else `dwfetch-svg` beside the running executable.
    public static var path: String? {
        get { settings.withLock { $0 } }
        set { settings.withLock { $0 = newValue } }
    }

    /// Why no helper can be started here (it is not installed), nil when one can: for a server to say so at
    /// start-up rather than at the first SVG or put-off encode. Any thread.
    public static var problem: String? {
        let path = candidate()
        return isInstalled(path) ? nil : "the " + notInstalled(path)
    }

    /// The helper that will be started for `job`: ``path``, the environment's, or the sibling `dwfetch-svg`.
    static func locate(for job: HelperJob) throws(DWWebImageError) -> String {
        let path = candidate()
        guard isInstalled(path) else {
            throw job.unavailable("its " + notInstalled(path))
        }
        return path
    }

    private static func notInstalled(_ path: String) -> String {
        "helper \(path) is not installed (it is built beside dwfetch)"
    }

    private static func candidate() -> String {
        path ?? ProcessInfo.processInfo.environment[environmentVariable]
            ?? executableDirectory() + "/" + executableName
    }

    private static func isInstalled(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// The directory of the running executable (symbolic links resolved).
    private static func executableDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard count > 0 else { return (CommandLine.arguments[0] as NSString).deletingLastPathComponent }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (path as NSString).deletingLastPathComponent
    }
}

/// What a helper is started for: its first argument, its answer record, the name its messages use, and how a
/// failure to start it reads. Any thread.
enum HelperJob: Sendable {
    /// One SVG rasterisation (``DWSVGRenderer``), under a CPU budget and `RLIMIT_CPU`.
    case svgRender
    /// One put-off AVIF or JPEG XL save (``DWIdleEncoder``) at `SCHED_IDLE`.
    case idleEncode

    /// The first argument that makes the executable this helper.
    var argument: String {
        self == .svgRender ? DWSVGRenderer.helperArgument : DWIdleEncoder.helperArgument
    }

    /// The helper's name in messages: "SVG helper", "encode helper".
    var name: String { self == .svgRender ? "SVG helper" : "encode helper" }

    /// The record the helper answers with.
    var record: HelperRecord { self == .svgRender ? .svgPixels : .encodedBytes }

    /// Whether the helper runs under `RLIMIT_CPU`, so that SIGXCPU or SIGKILL from the kernel means it spent its
    /// CPU (10005), not that it broke.
    var isCPULimited: Bool { self == .svgRender }

    /// 10000: this helper's work cannot be done here for `why` (the helper is missing, a socket cannot be made).
    func unavailable(_ why: String) -> DWWebImageError {
        self == .svgRender ? .cannotRenderSVG(why) : .failed("cannot encode in the encode helper", reason: why)
    }

    /// Whether `arguments` (a `main`'s `CommandLine.arguments`) start this helper.
    func isInvocation(_ arguments: [String]) -> Bool { arguments.count > 1 && arguments[1] == argument }

    /// This helper's whole run in the child, on the calling (main) thread: dies with its parent, gains no
    /// privileges, leaves no core file, then runs `body`, which writes its answer and returns the exit status; an
    /// error it throws is written as the failure record (exit status 1).
    func runChild(_ body: () throws(DWWebImageError) -> Int32) -> Int32 {
        _ = cvips_prctl(PR_SET_PDEATHSIG, UInt(SIGKILL))
        _ = cvips_prctl(PR_SET_NO_NEW_PRIVS, 1)
        _ = cvips_set_no_core_files()
        do throws(DWWebImageError) {
            return try body()
        } catch {
            _ = Self.writeAll(record.failure(error))
            return 1
        }
    }

    /// Writes a helper's answer, its record's `header` then `payload`, to standard output; the child's exit status:
    /// 0, or 3 when the parent's end is gone.
    static func writeAnswer(_ header: [UInt8], _ payload: UnsafeRawBufferPointer) -> Int32 {
        writeAll(header) && writeAll(payload) ? 0 : 3
    }

    /// Writes `bytes` whole to standard output (the helper's socket); false when it cannot.
    static func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { writeAll($0) }
    }

    /// Writes `bytes` whole to standard output (the helper's socket); false when it cannot.
    static func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var written = 0
        while written < bytes.count {
            let n = write(1, bytes.baseAddress! + written, bytes.count - written)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            written += n
        }
        return true
    }
}
