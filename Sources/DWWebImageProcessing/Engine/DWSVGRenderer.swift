// DWSVGRenderer: where SVG rasterisation runs — a helper process (dwfetch-svg, or any executable that calls
// DWSVGRenderer.runHelper), started per render and killed when it spends its CPU budget.
internal import CVips
import DWLocking
import DWWebImage
import Foundation

/// The SVG helper process. librsvg cannot be interrupted inside a filter primitive (one `<feMorphology>` may take
/// seconds), so the engine never runs it in this process: each render starts the helper with the document on its
/// standard input and reads the sRGB RGBA pixels from its standard output, while the calling thread watches the
/// helper's CPU clock and kills it (SIGKILL) past ``DWProcessingLimits/renderBudget``. The helper also runs under
/// `RLIMIT_CPU` (the budget rounded up, plus one second), `RLIMIT_AS` (what the render may need, see
/// ``SVGRenderProcess``), no core files, `PR_SET_NO_NEW_PRIVS`, and dies with its parent; it gets no descriptor but
/// its standard streams, only the environment libvips, fontconfig and the locale read (no keys or credentials), and
/// is the only process in which libvips' `svgload_buffer` is unblocked.
///
/// The helper is ``helperPath`` when set, else the `DWWEBIMAGE_SVG_HELPER` environment variable's, else
/// `dwfetch-svg` beside the running executable (`/proc/self/exe`'s directory: where SwiftPM builds it, beside
/// `dwfetch`, `dwfetch-serve` and the test bundle). Settings are guarded by one lock; read from any thread.
public enum DWSVGRenderer {
    /// The first argument that makes an executable the helper (``runHelper(_:)``).
    public static let helperArgument = "--dwwebimage-svg-render"
    /// The executable name SwiftPM builds the helper as.
    public static let helperName = "dwfetch-svg"

    private static let settings = DWLock<String?>(nil)

    /// The helper executable; nil (default): `DWWEBIMAGE_SVG_HELPER`, else `dwfetch-svg` beside the running
    /// executable. An executable whose `main` calls ``runHelper(_:)`` first can name itself here.
    public static var helperPath: String? {
        get { settings.withLock { $0 } }
        set { settings.withLock { $0 = newValue } }
    }

    /// Why SVG sources cannot be rasterised in this process (the helper is not installed), nil when they can: for a
    /// server to say so at start-up rather than at the first SVG.
    public static var helperProblem: String? {
        do throws(DWWebImageError) {
            _ = try resolvedHelper()
            return nil
        } catch {
            return error.message
        }
    }

    /// The helper that will be started: ``helperPath``, the environment's, or the sibling `dwfetch-svg`.
    static func resolvedHelper() throws(DWWebImageError) -> String {
        let path =
            helperPath ?? ProcessInfo.processInfo.environment["DWWEBIMAGE_SVG_HELPER"]
            ?? executableDirectory() + "/" + helperName
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw .cannotRenderSVG("its helper \(path) is not installed (it is built beside dwfetch)")
        }
        return path
    }

    /// The directory of the running executable (symbolic links resolved).
    private static func executableDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard count > 0 else { return (CommandLine.arguments[0] as NSString).deletingLastPathComponent }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (path as NSString).deletingLastPathComponent
    }

    /// Whether `arguments` (a `main`'s `CommandLine.arguments`) start the helper.
    public static func isHelperInvocation(_ arguments: [String] = CommandLine.arguments) -> Bool {
        arguments.count > 1 && arguments[1] == helperArgument
    }

    /// The helper's whole run, for a `main` that ``isHelperInvocation(_:)``: limits itself, reads the document from
    /// standard input, renders it with libvips' `svgload_buffer` and writes the result record to standard output.
    /// Returns the exit status. Runs on the calling (main) thread.
    public static func runHelper(_ arguments: [String] = CommandLine.arguments) -> Int32 {
        _ = cvips_prctl(PR_SET_PDEATHSIG, UInt(SIGKILL))
        _ = cvips_prctl(PR_SET_NO_NEW_PRIVS, 1)
        let request: SVGRenderProcess.Request
        do throws(DWWebImageError) {
            request = try SVGRenderProcess.Request(arguments: Array(arguments.dropFirst(2)))
            let cpu = UInt(request.cpuBudget.rounded(.up)) + 1
            // AddressSanitizer (the fuzzer, which is its own helper) and ThreadSanitizer map terabytes of shadow
            // memory: no RLIMIT_AS under either
            let memory = cvips_under_sanitizer() != 0 ? 0 : UInt(request.memoryLimit)
            guard cvips_set_rlimits(cpu, cpu + 1, memory) == 0 else {
                throw DWWebImageError(.notAnImage, "cannot limit the SVG helper: \(String(cString: strerror(errno)))")
            }
            let document = try readInput(count: request.documentBytes)
            try Vips.start()
            cvips_operation_block_set("VipsForeignLoadSvgBuffer", 0)  // here only: librsvg from memory
            let image = try SVGRaster.load(
                document, scale: request.scale, dpi: request.dpi, maxPixels: request.maxPixels)
            let frame = try Decoder.normalize(image, autorotate: false)
            var length = 0
            guard let pixels = cvips_write_to_memory(frame.pointer, &length) else {
                throw Vips.error("cannot render svg")
            }
            defer { cvips_free(pixels) }
            let header = SVGRenderProcess.Record.pixels(width: frame.width, height: frame.height, bands: frame.bands)
            guard writeAll(header) && writeAll(UnsafeRawBufferPointer(start: pixels, count: length)) else { return 3 }
            return 0
        } catch {
            _ = writeAll(SVGRenderProcess.Record.failure(error))
            return 1
        }
    }

    private static func readInput(count: Int) throws(DWWebImageError) -> Data {
        var data = Data(count: count)
        var filled = 0
        while filled < count {
            let n = data.withUnsafeMutableBytes { read(0, $0.baseAddress! + filled, count - filled) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                throw .malformed("SVG helper", "the document ended after \(filled) bytes")
            }
            filled += n
        }
        return data
    }

    private static func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { writeAll($0) }
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
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
