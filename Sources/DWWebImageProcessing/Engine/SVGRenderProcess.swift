// SVGRenderProcess: one SVG render in the helper process (DWSVGRenderer) — started with posix_spawn, fed the
// document, its CPU clock watched, its pixels read back into a libvips image.
internal import CVips
import DWWebImage
import Foundation

/// Runs one render in the helper and returns its pixels. The calling thread does the whole exchange (a poll loop
/// over one socket), reading the helper's CPU clock every 20 ms; past the budget it kills the helper (SIGKILL) and
/// throws 10005. A helper that blocks without using CPU is killed after ``wallLimit(budget:)``.
enum SVGRenderProcess {
    /// What the helper is asked to do (its arguments after ``DWSVGRenderer/helperArgument``).
    struct Request {
        var scale: Double
        var dpi: Double
        var maxPixels: Int
        var documentBytes: Int
        var cpuBudget: Double
        var memoryLimit: Int

        init(scale: Double, dpi: Double, maxPixels: Int, documentBytes: Int, cpuBudget: Double, memoryLimit: Int) {
            (self.scale, self.dpi, self.maxPixels) = (scale, dpi, maxPixels)
            (self.documentBytes, self.cpuBudget, self.memoryLimit) = (documentBytes, cpuBudget, memoryLimit)
        }

        init(arguments: [String]) throws(DWWebImageError) {
            guard arguments.count == 6, let scale = Double(arguments[0]), let dpi = Double(arguments[1]),
                let maxPixels = Int(arguments[2]), let bytes = Int(arguments[3]), let cpu = Double(arguments[4]),
                let memory = Int(arguments[5]), scale > 0, dpi > 0, bytes > 0, cpu > 0, memory > 0
            else {
                throw .malformed("SVG helper", "unusable arguments \(arguments)")
            }
            self.init(
                scale: scale, dpi: dpi, maxPixels: maxPixels, documentBytes: bytes, cpuBudget: cpu,
                memoryLimit: memory)
        }

        var arguments: [String] {
            [
                String(scale), String(dpi), String(maxPixels), String(documentBytes), String(cpuBudget),
                String(memoryLimit)
            ]
        }
    }

    /// The helper's answer on its standard output: 8 bytes of magic, then three little-endian Int64s — width,
    /// height, bands and the pixels after them; or the error's code, and its message to the end.
    enum Record {
        static let pixelsMagic = Array("DWSVGPX1".utf8), failureMagic = Array("DWSVGERR".utf8)
        static let headerSize = 32

        static func pixels(width: Int, height: Int, bands: Int) -> [UInt8] {
            pixelsMagic + [width, height, bands].flatMap { withUnsafeBytes(of: Int64($0).littleEndian, Array.init) }
        }

        static func failure(_ error: DWWebImageError) -> [UInt8] {
            let code = Int64(error.code.rawValue)
            return failureMagic + withUnsafeBytes(of: code.littleEndian, Array.init) + [0, 0, 0, 0, 0, 0, 0, 0]
                + [0, 0, 0, 0, 0, 0, 0, 0] + Array(error.message.utf8.prefix(4000))
        }

        static func int(_ bytes: [UInt8], at offset: Int) -> Int {
            Int(truncatingIfNeeded: bytes[offset..<offset + 8].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) })
        }
    }

    /// The address space the helper may map: a baseline for the runtime, libvips, librsvg and fonts, plus room
    /// for the output (its buffer and librsvg's surfaces) and the embedded images' decoded pixels.
    static func memoryLimit(outputPixels: Int, embeddedPixels: Int) -> Int {
        let baseline = 1 << 30
        let output = outputPixels.multipliedReportingOverflow(by: 16)
        let embedded = embeddedPixels.multipliedReportingOverflow(by: 8)
        return output.overflow || embedded.overflow
            ? Int.max / 2
            : min(
                Int.max / 2,
                baseline + output.partialValue
                    + embedded.partialValue)
    }

    /// Seconds a helper may take whatever its CPU: a loaded machine stretches a render, a blocked one does not end.
    static func wallLimit(budget: Double) -> Double { budget * 20 + 10 }

    /// `document` rendered by the helper at `scale`/`dpi` within `limits` (pixel count, CPU budget).
    static func render(
        _ document: Data, scale: Double, dpi: Double, limits: DWProcessingLimits,
        embeddedPixels: Int
    ) throws(DWWebImageError) -> VImage {
        let helper = try DWSVGRenderer.resolvedHelper()
        let maxPixels = limits.maxPixelCount
        let budget = max(0.01, limits.renderBudget)
        let request = Request(
            scale: scale, dpi: dpi, maxPixels: maxPixels, documentBytes: document.count,
            cpuBudget: budget,
            memoryLimit: memoryLimit(
                outputPixels: maxPixels,
                embeddedPixels: embeddedPixels))
        var child = try HelperChild(helper, arguments: [DWSVGRenderer.helperArgument] + request.arguments)
        let outcome = child.exchange(
            document, budget: budget, wallLimit: wallLimit(budget: budget),
            maxPixelBytes: maxPixels.multipliedReportingOverflow(by: 4).partialValue)
        let status = child.reap()
        switch outcome {
        case .overBudget(let seconds):
            throw .svgStopped(
                after: "\(String(format: "%.2f", seconds)) s of CPU, over its budget of \(budget) s",
                size: Int64(seconds.rounded(.up)), limit: Int64(budget.rounded(.up)))
        case .overWallLimit:
            throw .svgStopped(after: "\(wallLimit(budget: budget)) s")
        case .failure(let code, let message):
            throw DWWebImageError(DWWebImageError.Code(rawValue: code) ?? .notAnImage, message)
        case .pixels(let width, let height, let bands, let buffer):
            defer { buffer.deallocate() }
            return try borrowBytes(Data(bytesNoCopy: buffer.baseAddress!, count: buffer.count, deallocator: .none)) {
                bytes throws(DWWebImageError) in
                try Vips.make("cannot wrap the SVG render") {
                    cvips_from_memory(bytes.baseAddress!, bytes.count, Int32(width), Int32(height), Int32(bands), $0)
                }
            }
        case .broken(let reason):
            throw DWWebImageError(
                status.signalled == SIGXCPU || status.signalled == SIGKILL ? .tooLarge : .notAnImage,
                "SVG helper \(status.description): \(reason)")
        }
    }
}
