// AnimationLimits: what WebP and APNG frame sources share — limits checked from the structure, and transparent
// pixels made (0, 0, 0, 0).
import DWWebImage
import Foundation

enum AnimationLimits {
    /// The canvas against `maxPixelCount`, the frame count against `maxFrameCount`, the sum of the frames' rect
    /// areas against `maxTotalPixelCount`: 10005 (as for GIF) before any pixel is decoded.
    static func check(width: Int, height: Int, frameAreas: [Int], limits: DWAnimatedImage.Limits)
        throws(DWWebImageError)
    {
        let area = width.multipliedReportingOverflow(by: height)
        if area.overflow || area.partialValue > limits.maxPixelCount {
            throw tooLarge(
                area.overflow ? .max : area.partialValue, limits.maxPixelCount, "\(width)×\(height) canvas pixel count")
        }
        if frameAreas.count > limits.maxFrameCount {
            throw tooLarge(frameAreas.count, limits.maxFrameCount, "frame count")
        }
        var total = 0
        for frame in frameAreas {
            total = total.addingReportingOverflow(frame).partialValue
            if total > limits.maxTotalPixelCount || total < 0 {
                throw tooLarge(total < 0 ? .max : total, limits.maxTotalPixelCount, "total frame pixel count")
            }
        }
    }

    private static func tooLarge(_ size: Int, _ limit: Int, _ what: String) -> DWWebImageError {
        .tooLarge(nil, size: Int64(size), limit: Int64(limit), what: what)
    }

    /// Fully transparent pixels become (0, 0, 0, 0), as ``DWImageFrame`` promises.
    static func clearTransparent(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt32.self)
            let alpha = UInt32(littleEndian: 0xFF00_0000)
            for i in words.indices where words[i] & alpha == 0 { words[i] = 0 }
        }
    }
}
