// DWEncoderSettings: the savers' process-wide knobs, imgproxy's IMGPROXY_JPEG_PROGRESSIVE, PNG_INTERLACED,
// PNG_QUANTIZE, PNG_QUANTIZATION_COLORS, WEBP_EFFORT, AVIF_SPEED and JXL_EFFORT.
import DWWebImage

/// How every output of a format is written, beyond its quality; the defaults are imgproxy's, except the AVIF speed
/// (see ``avifSpeed``). A plain value; the engine reads
/// ``DWImageProcessing/encoderSettings`` as each encode starts.
public struct DWEncoderSettings: Sendable, Equatable, Hashable {
    /// JPEG written progressive (libvips' `interlace`); default off.
    public var jpegProgressive = false
    /// PNG written Adam7-interlaced; default off.
    public var pngInterlaced = false
    /// PNG quantised to a palette (libimagequant), of 2–256 colours (``pngQuantizationColors``); default off.
    public var pngQuantize = false
    /// The palette's colours when ``pngQuantize`` is on (2–256, default 256), as imgproxy turns them into a bit depth:
    /// more than 16 is 8 bits, more than 4 is 4, more than 2 is 2, else 1.
    public var pngQuantizationColors = 256
    /// libvips' WebP `effort`, 1–6 (default 4, imgproxy's and libvips').
    public var webpEffort = 4
    /// imgproxy's AVIF speed, 0 (slowest) – 9 (fastest), libvips' `effort` 9 − speed. Default 9, the cheapest AV1
    /// encode, so the largest result allowed stays seconds of CPU; imgproxy's own default has been 8 since 3.27.
    public var avifSpeed = 9
    /// libvips' JPEG XL `effort`, 1–9 (default 4, imgproxy's; libvips' own is 7).
    public var jxlEffort = 4

    /// The defaults above.
    public init() {}

    /// Whether every value is within its range.
    public var isValid: Bool {
        (2...256).contains(pngQuantizationColors) && (1...6).contains(webpEffort) && (0...9).contains(avifSpeed)
            && (1...9).contains(jxlEffort)
    }

    /// The PNG palette's bit depth (0: no palette), as imgproxy's `vips_pngsave_go` makes it from the colours.
    var pngPaletteBitDepth: Int32 {
        guard pngQuantize else { return 0 }
        switch pngQuantizationColors {
        case 17...: return 8
        case 5...: return 4
        case 3...: return 2
        default: return 1
        }
    }
}
