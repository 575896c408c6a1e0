// TIFFRGBA: the TIFFs libvips' tiffload refuses, read by libtiff's own RGBA reader (through CTiff), as Pillow does.
internal import CTiff
import DWWebImage
import Foundation

/// libtiff's `TIFFReadRGBAImageOriented` for the first page of a TIFF that libvips 8.14 will not decode: tiled
/// with separate planes ("tiled separate planes not supported", found only when pixels are read, so it is asked
/// of libtiff first), old-style JPEG and other subsampled YCbCr ("subsampled images not supported", refused when
/// opening). Everything else stays with libvips (streaming, 16-bit, ICC profiles). Samples libtiff's RGBA reader
/// cannot read either (12-bit, for one) are refused with both readers' reasons. Runs on the caller's thread.
enum TIFFRGBA {
    /// Whether libvips opens this TIFF but refuses its pixels: the first directory is tiled with separate planes.
    /// False when libtiff cannot open it (libvips' own error is then the one to show).
    static func vipsRefusesPixels(_ data: Data) -> Bool {
        (try? withReader(data) { reader in
            ctiff_is_tiled(reader) != 0 && ctiff_planar_config(reader) == 2
        }) ?? false
    }

    /// The first page as RGB or RGBA (straight alpha), top row first, its orientation applied. The size libtiff
    /// reads is checked against `limits` before the pixel buffer is allocated.
    ///
    /// - Throws: 10005 over the limits; 10000 when libtiff cannot open or fully decode it (its reason in the message).
    static func decode(_ data: Data, limits: DWProcessingLimits) throws(DWWebImageError) -> Raster {
        try withReader(data) { (reader) throws(DWWebImageError) -> Raster in
            let width = Int(ctiff_width(reader)), height = Int(ctiff_height(reader))
            try Decoder.checkArea(width, height, limits: limits)
            var packed = [UInt32](repeating: 0, count: width * height)
            var error: UnsafeMutablePointer<CChar>?
            let status = packed.withUnsafeMutableBufferPointer {
                ctiff_read_rgba(reader, $0.baseAddress!, $0.count, &error)
            }
            guard status == 0 else { throw failure("libtiff cannot decode the TIFF", error) }
            return raster(packed, width: width, height: height)
        }
    }

    /// Unpacks libtiff's A << 24 | B << 16 | G << 8 | R pixels; its alpha is associated, ours straight (RGB when
    /// every pixel is opaque).
    private static func raster(_ packed: [UInt32], width: Int, height: Int) -> Raster {
        let opaque = packed.allSatisfy { $0 >> 24 == 0xFF }
        let bands = opaque ? 3 : 4
        var pixels = [UInt8](repeating: 0, count: packed.count * bands)
        for (i, p) in packed.enumerated() {
            let a = p >> 24
            for c in 0..<3 {
                var v = p >> (8 * UInt32(c)) & 0xFF
                if a > 0 && a < 255 { v = min(255, (v * 255 + a / 2) / a) }
                pixels[i * bands + c] = UInt8(v)
            }
            if !opaque { pixels[i * 4 + 3] = UInt8(a) }
        }
        return Raster(width: width, height: height, bands: bands, pixels: pixels)
    }

    /// `body` with libtiff opened over `data` at its first directory, closed afterwards.
    private static func withReader<R>(_ data: Data, _ body: (OpaquePointer) throws(DWWebImageError) -> R)
        throws(DWWebImageError) -> R
    {
        try borrowBytes(data) { (bytes) throws(DWWebImageError) -> R in
            var error: UnsafeMutablePointer<CChar>?
            guard let reader = ctiff_open(bytes.baseAddress!, bytes.count, &error) else {
                throw failure("libtiff cannot open the TIFF", error)
            }
            defer { ctiff_close(reader) }
            return try body(reader)
        }
    }

    private static func failure(_ what: String, _ error: UnsafeMutablePointer<CChar>?) -> DWWebImageError {
        defer { ctiff_free(error) }
        return .failed(what, reason: error.map { String(cString: $0) } ?? "")
    }
}
