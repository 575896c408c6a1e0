// Decoder+JPEGHere: a JPEG's pixels decoded by libjpeg straight into memory on the calling thread, under the header
// libvips' loader read.
internal import CJpeg
internal import CVips
import DWWebImage
import Foundation

extension Decoder {
    /// The pixels of `header` — libvips' JPEG loader opened on `data` at DCT scale `shrink`, its header read and its
    /// pixels not yet decoded — decoded by libjpeg into a memory image with `header`'s header and metadata; nil
    /// when this path does not apply, and the caller then reads `header`'s pixels through libvips as before.
    ///
    /// The same libjpeg with the same settings (islow IDCT, fancy upsampling, YCbCr to RGB) gives libvips' pixels
    /// byte for byte (`JPEGHereTests`); what libvips adds on the way costs a cold 512×384 decode about a sixth of
    /// its instructions beside libjpeg's own: strip regions and a line cache whose buffers are allocated and
    /// cleared per request, and their copies. It applies to 8-bit YCbCr and greyscale JPEGs whose pixels fit in
    /// ``Encoder/materializeLimit`` (bigger ones stay streaming pipelines), decoded with no libjpeg warning: a
    /// truncated or corrupt file, CMYK, or anything unexpected goes to libvips and its `fail_on` policy. Runs on the
    /// caller's (processing) thread.
    static func decodeJPEGHere(_ header: VImage, data: Data, shrink: Int) -> VImage? {
        let bands = header.bands
        let width = header.width, height = header.height
        guard header.isUChar, bands == 1 || bands == 3, width > 0, height > 0,
            width * height * bands <= Encoder.materializeLimit
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
}
