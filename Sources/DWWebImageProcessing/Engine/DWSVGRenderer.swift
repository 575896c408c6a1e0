// DWSVGRenderer: where SVG rasterisation runs — a helper process (dwfetch-svg, or any executable that calls
// DWSVGRenderer.runHelper), started per render and killed when it spends its CPU budget.
internal import CVips
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
/// The helper is ``DWHelperProcess``'s executable (`dwfetch-svg`, the encode helper's too), started with
/// ``helperArgument``. Read and set from any thread.
public enum DWSVGRenderer {
    /// The first argument that makes an executable the helper (``runHelper(_:)``).
    public static let helperArgument = "--dwwebimage-svg-render"
    /// The helper executable: ``DWHelperProcess/path`` (the one setting both helpers share, kept here for SVG-only
    /// callers such as the SVG fuzzer, which names itself as its helper); nil (default):
    /// `DWWEBIMAGE_HELPER`, else `dwfetch-svg` beside the running executable. An executable whose `main` calls
    /// ``runHelper(_:)`` first can name itself here.
    public static var helperPath: String? {
        get { DWHelperProcess.path }
        set { DWHelperProcess.path = newValue }
    }

    /// Why SVG sources cannot be rasterised in this process (the helper is not installed), nil when they can: for a
    /// server to say so at start-up rather than at the first SVG.
    public static var helperProblem: String? {
        do throws(DWWebImageError) {
            _ = try DWHelperProcess.locate(for: .svgRender)
            return nil
        } catch {
            return error.message
        }
    }

    /// Whether `arguments` (a `main`'s `CommandLine.arguments`) start the helper.
    public static func isHelperInvocation(_ arguments: [String] = CommandLine.arguments) -> Bool {
        HelperJob.svgRender.isInvocation(arguments)
    }

    /// The helper's whole run, for a `main` that ``isHelperInvocation(_:)``: limits itself, reads the document from
    /// standard input, renders it with libvips' `svgload_buffer` and writes the result record to standard output.
    /// Returns the exit status. Runs on the calling (main) thread.
    public static func runHelper(_ arguments: [String] = CommandLine.arguments) -> Int32 {
        HelperJob.svgRender.runChild { () throws(DWWebImageError) -> Int32 in
            let request = try SVGRenderProcess.Request(arguments: Array(arguments.dropFirst(2)))
            let cpu = UInt(request.cpuBudget.rounded(.up)) + 1
            // AddressSanitizer (the fuzzer, which is its own helper) and ThreadSanitizer map terabytes of shadow
            // memory: no RLIMIT_AS under either
            let memory = cvips_under_sanitizer() != 0 ? 0 : UInt(request.memoryLimit)
            guard cvips_set_rlimits(cpu, cpu + 1, memory) == 0 else {
                throw .failed("cannot limit the SVG helper", reason: String(cString: strerror(errno)))
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
            return HelperJob.writeAnswer(
                HelperRecord.svgPixels.answer(
                    HelperRecord.Header(first: frame.width, second: frame.height, third: frame.bands)),
                UnsafeRawBufferPointer(start: pixels, count: length))
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
}
