// libFuzzer entry point over the processing path: DWImage's header checks, the limits, libvips' loaders (JPEG, PNG,
// WebP, TIFF, HEIF/AVIF) and CTiff's libtiff RGBA fallback, our BMP/ICO reader, the animated WebP/APNG/GIF frame
// sources (sequential and buffered random access), bitmap(), verifyDecodes() and a resize + round + convert chain.
// Built by fuzz/build-pixels.sh (SwiftPM, fuzz/Package.swift) against the library's real modules.
import Foundation
@testable import DWWebImage
@testable import DWWebImageProcessing

/// Small limits so the fuzzer spends its time on structure, not on huge canvases (the limit checks themselves run
/// on every input).
private let configured: Bool = {
    DWImageProcessing.limits = DWProcessingLimits(maxPixelCount: 1 << 20, maxFrameCount: 64,
                                                  maxTotalPixelCount: 1 << 22, maxByteCount: 1 << 20)
    DWImageProcessing.registerAnimationDecoders()
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
    walkFrames(of: image)
    _ = try? image.verifyDecodes()  // must not crash; processing below may still succeed on what it fails (partial GIFs)
    let chain: [any DWImageProcessor] = [DWResize(width: 24, height: 24, mode: .fill), DWRoundCorners(radius: 6),
                                         DWConvert(format: image.frameCount > 1 ? .gif : .png)]
    if let output = try? DWImageProcessors.apply(chain, to: image) {
        precondition(output.pixelWidth <= 24 && output.pixelHeight <= 24, "resize gave \(output.pixelWidth)×\(output.pixelHeight)")
        _ = try? output.bitmap()
    }
    return 0
}

/// Every frame of an animation (GIF, APNG, animated WebP) in order, then a few by index through the buffer: the
/// two must give the same pixels.
private func walkFrames(of image: DWImage) {
    let limits = DWAnimatedImage.Limits(maxPixelCount: 1 << 20, maxFrameCount: 64, maxTotalPixelCount: 1 << 22)
    guard let animation = (try? image.animatedImage(bufferCount: 3, limits: limits)) ?? nil else { return }
    precondition(animation.frameCount > 0 && animation.width > 0 && animation.height > 0)
    let bytes = animation.width * animation.height * 4
    var sequential: [Int] = []
    animation.forEachFrame { frame in
        precondition(frame.pixels.count == bytes, "frame \(frame.index) has \(frame.pixels.count) bytes, not \(bytes)")
        sequential.append(frame.pixels.hashValue)
        return true
    }
    let count = animation.frameCount
    precondition(sequential.count == count, "forEachFrame gave \(sequential.count) of \(count) frames")
    for i in [count - 1, 0, count / 2, max(0, count - 2)] {
        precondition(animation.frame(at: i).pixels.hashValue == sequential[i], "frame \(i) differs from sequential decode")
    }
}
