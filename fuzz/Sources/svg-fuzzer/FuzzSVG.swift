// libFuzzer entry point over the SVG path as `dwfetch serve` runs it, with the server's default limits: the core's
// sniffer, SVGGuard's scan (the sanitiser's tokenizer, references, data: images sniffed by the core, the caps, the
// <use> graph), the size without a render, the sanitiser, and a bounded render in the helper process (fitted into
// 64 × 64 so the fuzzer spends its time on structure, not pixels). Built by fuzz/build.sh svg.
import Foundation
@testable import DWWebImage
@testable import DWWebImageProcessing

/// `dwfetch serve`'s defaults: --max-pixels 50 MP, --max-size 50 MiB, --max-result-pixels 16.8 MP, one frame;
/// the render budget lowered to 2 s (libFuzzer's -timeout is 20 s).
private let serverLimits: DWProcessingLimits = {
    var limits = DWProcessingLimits(maxPixelCount: 50_000_000, maxFrameCount: 1000, maxByteCount: 50 * 1024 * 1024)
    limits.maxProcessedFrames = 1
    limits.maxVectorPixels = 16_800_000
    limits.renderBudget = 2
    return limits
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let start, size > 0 else { return 0 }
    let data = Data(bytes: start, count: size)
    // The scan on any bytes (not only what the sniffer takes for SVG): it must refuse or pass, never trap.
    if let report = try? SVGGuard.check(data, maxPixels: serverLimits.maxPixelCount) {
        precondition(report.elements <= SVGGuard.Caps.elements && report.embeddedPixels <= serverLimits.maxPixelCount)
        precondition(report.filterPrimitives <= SVGGuard.Caps.filterPrimitives)
    }
    _ = try? DWSVGSanitizer.sanitize(data)
    guard let image = try? DWImage(data: data), image.format == .svg else { return 0 }
    let size = try? DWImageProcessing.withLimits(serverLimits) { () throws(DWWebImageError) in
        try image.reportedSize
    }
    if let size { precondition(size.width > 0 && size.height > 0, "size \(size)") }
    let fit = DWResize(width: 64, height: 64)
    if let output = try? DWImageProcessing.process(image, with: fit, limits: serverLimits) {
        precondition(output.pixelWidth <= 64 && output.pixelHeight <= 64, "\(output.pixelWidth)×\(output.pixelHeight)")
    }
    return 0
}
