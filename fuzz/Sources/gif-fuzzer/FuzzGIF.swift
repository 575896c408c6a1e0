// libFuzzer entry point over the format sniffer and the giflib-based GIF decoder (structure walk, compositing of
// every frame, buffered random access). Built by fuzz/build.sh (SwiftPM, fuzz/Package.swift) against the library.
import Foundation
@testable import DWWebImage

/// Small budgets so the fuzzer spends its time on structure, not on huge canvases (the limits themselves are
/// checked before allocation, which the tests cover).
private let limits = DWAnimatedImage.Limits(maxPixelCount: 1 << 20, maxFrameCount: 256, maxTotalPixelCount: 1 << 24)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let start, size > 0 else { return 0 }
    let data = Data(bytes: start, count: size)
    _ = ImageSniffer.format(of: data)
    let info = ImageSniffer.inspect(data)
    _ = ImageSniffer.inspect(data, walkingGIF: false)  // the header-only read DWImage uses before GIFIndex
    if let info {
        precondition(info.width > 0 && info.height > 0 && info.frameCount > 0, "sniffer returned an empty image")
    }
    guard let animation = try? DWAnimatedImage(data: data, limits: limits, bufferCount: 3) else { return 0 }
    precondition(animation.frameCount > 0 && animation.width > 0 && animation.height > 0)
    let bytes = animation.width * animation.height * 4
    var sequential: [UInt64] = []
    animation.forEachFrame { frame in
        precondition(frame.pixels.count == bytes)
        sequential.append(checksum(frame.pixels))
        return true
    }
    // Buffered random access must give the same pixels as sequential decoding.
    let count = animation.frameCount
    for i in [count - 1, 0, count / 2, count - 1, max(0, count - 2)] {
        precondition(checksum(animation.frame(at: i).pixels) == sequential[i], "frame \(i) differs from sequential decode")
    }
    return 0
}

private func checksum(_ bytes: [UInt8]) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    return hash
}
