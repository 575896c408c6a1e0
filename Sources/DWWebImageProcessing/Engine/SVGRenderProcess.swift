// SVGRenderProcess: one SVG render in the SVG helper (DWSVGRenderer) — its request, its pixel record's size, and
// the answer read back into a libvips image; the process itself is HelperChild's.
internal import CVips
import DWWebImage
import Foundation

/// Runs one render in the helper and returns its pixels. The calling thread does the whole exchange
/// (``HelperChild/exchange(_:watch:payloadBytes:)``), reading the helper's CPU clock every 20 ms; past the budget it
/// kills the helper (SIGKILL) and throws 10005. A helper that blocks without using CPU is killed after
/// ``wallLimit(budget:)`` (10005); one whose work is stopped (``DWWorkCancellation/current``) at once (10007).
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

    /// The pixel record's payload for `header` (width, height, bands): width × height × bands bytes, refused past
    /// `maxPixelBytes` or any side over 10,000,000.
    static func pixelBytes(_ header: HelperRecord.Header, maxPixelBytes: Int) -> Result<Int, HelperRecord.Refusal> {
        let (width, height, bands) = (header.first, header.second, header.third)
        let size = width.multipliedReportingOverflow(by: height).partialValue.multipliedReportingOverflow(by: bands)
        guard width > 0, height > 0, (3...4).contains(bands), width <= 10_000_000, height <= 10_000_000, !size.overflow,
            size.partialValue <= maxPixelBytes
        else {
            return .failure(
                HelperRecord.Refusal(reason: "a pixel record of \(width)×\(height)×\(bands) is not acceptable"))
        }
        return .success(size.partialValue)
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
        let helper = try DWHelperProcess.locate(for: .svgRender)
        let maxPixels = limits.maxPixelCount
        let budget = max(0.01, limits.renderBudget)
        let request = Request(
            scale: scale, dpi: dpi, maxPixels: maxPixels, documentBytes: document.count, cpuBudget: budget,
            memoryLimit: memoryLimit(outputPixels: maxPixels, embeddedPixels: embeddedPixels))
        var child = try HelperChild(.svgRender, helper, arguments: request.arguments)
        let maxPixelBytes = maxPixels.multipliedReportingOverflow(by: 4).partialValue
        let outcome = child.exchange(
            document, watch: HelperChild.Watch(cpuBudget: budget, wallLimit: wallLimit(budget: budget))
        ) { pixelBytes($0, maxPixelBytes: maxPixelBytes) }
        let status = child.reap()
        switch outcome {
        case .overBudget(let seconds):
            throw .svgStopped(
                after: "\(String(format: "%.2f", seconds)) s of CPU, over its budget of \(budget) s",
                size: Int64(seconds.rounded(.up)), limit: Int64(budget.rounded(.up)))
        case .overWallLimit:
            throw .svgStopped(after: "\(wallLimit(budget: budget)) s")
        case .stopped:
            throw DWWorkCancellation.stopped
        case .failure(let error):
            throw error
        case .answer(let header, let buffer):
            defer { buffer.deallocate() }
            return try borrowBytes(Data(bytesNoCopy: buffer.baseAddress!, count: buffer.count, deallocator: .none)) {
                bytes throws(DWWebImageError) in
                try Vips.make("cannot wrap the SVG render") {
                    cvips_from_memory(
                        bytes.baseAddress!, bytes.count, Int32(header.first), Int32(header.second),
                        Int32(header.third), $0)
                }
            }
        case .broken(let reason):
            throw child.brokenError(reason, status: status)
        }
    }
}
