// Encoder+JPEG: a JPEG compressed on the calling thread (libjpeg directly), the bytes libvips' saver would write.
internal import CJpeg
internal import CVips
import DWWebImage
import Foundation

extension Encoder {
    /// `image` compressed as libvips 8.14's JPEG saver does with `strip` — baseline, no marker segment, Huffman
    /// tables optimised, chroma 4:2:0 below quality 90 and 4:4:4 from 90 (its `subsample_mode` auto), the same
    /// libjpeg — but on the calling thread; nil when this path would not write those same bytes: pixels not in
    /// memory (this never computes a pipeline), not 8-bit, or not 1-band grey or 3-band sRGB.
    ///
    /// Why: libvips' saver runs a thread pool with a write-behind thread for every image, so a small result's strips
    /// hop between the caller, a worker and the writer; with two transforms in flight on two cores those threads
    /// queue behind each other on one core while the other idles (docs/performance.md, "Serve").
    static func saveJPEGHere(_ image: VImage, quality: Int) throws(DWWebImageError) -> Data? {
        let bands = image.bands
        guard image.isUChar, (bands == 3 && image.isSRGB) || (bands == 1 && image.isGrey),
            let pixels = cvips_memory_pixels(image.pointer)
        else { return nil }
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = cjpeg_encode(
            pixels.assumingMemoryBound(to: UInt8.self), Int32(image.width), Int32(image.height),
            Int32(bands), image.width * bands, Int32(quality), quality < 90 ? 1 : 0, 1,
            &output, &length, &message, message.count)
        guard status == 0, let output else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .failed("cannot encode jpeg", reason: reason)
        }
        defer { cjpeg_free(output) }
        return Data(bytes: output, count: length)
    }
}
