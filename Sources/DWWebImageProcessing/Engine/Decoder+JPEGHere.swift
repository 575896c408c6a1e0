// Decoder+JPEGHere: a JPEG's pixels decoded by libjpeg straight into memory on the calling thread, under the header
// libvips' loader read.
internal import CJpeg
internal import CVips
import DWWebImage
import Foundation

extension Decoder {
    /// Bytes of pixels a JPEG read once (a resize's source) is decoded into memory up to: 4 MiB, about 1450×965 RGB
    /// (a 12-megapixel photo at 1/4 and the cold serve row's 2048×1536 at 1/2 fit).
    static let decodeHereSequentialLimit = 4 * 1024 * 1024

    /// The pixels of `header` — libvips' JPEG loader opened on `data` at DCT scale `shrink`, its header read and its
    /// pixels not yet decoded — decoded by libjpeg into a memory image with `header`'s header and metadata; nil
    /// when this path does not apply, and the caller then reads `header`'s pixels through libvips as before.
    ///
    /// The same libjpeg with the same settings (islow IDCT, fancy upsampling, YCbCr to RGB) gives libvips' pixels
    /// byte for byte (`JPEGDecodeHereTests`); what libvips adds on the way costs a cold 512×384 decode about a
    /// tenth of its instructions beside libjpeg's own: strip regions and a line cache whose buffers are allocated
    /// and cleared per request, their copies, and libjpeg fed in chunks (its Huffman decoder's slow refill path).
    /// It applies to 8-bit YCbCr and greyscale JPEGs decoded with no libjpeg warning: a truncated or corrupt file,
    /// CMYK, or anything unexpected goes to libvips and its `fail_on` policy. `sequential` (the image is read once,
    /// top to bottom, and libvips would stream it in strips): only up to ``decodeHereSequentialLimit`` bytes of
    /// pixels, so a transform in flight holds no more than that of a decode; otherwise (libvips would decode it into
    /// memory too) up to ``Encoder/materializeLimit``. Runs on the caller's (processing) thread.
    static func decodeJPEGHere(_ header: VImage, data: Data, shrink: Int, sequential: Bool) -> VImage? {
        let bands = header.bands
        let width = header.width, height = header.height
        let limit = sequential ? decodeHereSequentialLimit : Encoder.materializeLimit
        guard header.isUChar, bands == 1 || bands == 3, width > 0, height > 0, width * height * bands <= limit
        else { return nil }
        let length = width * height * bands
        guard let pixels = malloc(length) else { return nil }
        let status = data.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.baseAddress else { return 1 }
            return cjpeg_decode(
                base.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(shrink), Int32(bands),
                pixels.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), width * bands)
        }
        guard status == 0 else {
            free(pixels)
            return nil
        }
        var out: OpaquePointer?
        guard cvips_adopt_pixels(header.pointer, pixels, length, &out) == 0, let out else { return nil }
        return VImage(out)
    }

    /// Whether `vips_thumbnail_image` into `width` × `height` by ``VipsSize`` `size` and ``VipsInteresting`` `crop`
    /// would give `image`'s own pixels back, for an image ``decodeJPEGHere(_:data:shrink:sequential:)`` decoded
    /// only: then the caller skips it, and the image stays in memory for the encoder instead of being copied strip
    /// by strip through the thumbnail's pipeline. libvips 8.14 (`vips_thumbnail_calculate_common`) shrinks a fit
    /// (no crop) by max(image ÷ box) over both sides, at least 1 for `down`; a shrink of exactly 1 is no resize.
    /// With no ICC profile, no EXIF orientation and 8-bit sRGB without alpha, nothing else in it touches the pixels
    /// (`JPEGDecodeHereTests`). A crop, `force` and `up` always go through libvips. Any thread.
    static func thumbnailKeeps(_ image: VImage, width: Int, height: Int, size: Int32, crop: Int32) -> Bool {
        guard crop == VipsInteresting.none, size == VipsSize.both || size == VipsSize.down, width > 0, height > 0,
            cvips_memory_pixels(image.pointer) != nil, image.isUChar, image.bands == 3, image.isSRGB,
            !image.hasAlpha, !image.hasICCProfile, image.int("orientation") == nil
        else { return false }
        let (w, h) = (image.width, image.height)
        if size == VipsSize.down { return w <= width && h <= height }
        return (w == width && h <= height) || (h == height && w <= width)
    }
}
