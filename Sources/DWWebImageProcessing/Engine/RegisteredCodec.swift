// RegisteredCodec: formats an app's codecs read and write (DWImageCodecs), between their RGBA8 bitmaps and libvips
// images, so every processor, bitmap() and verifyDecodes() work on them as on the built-in formats.
internal import CVips
import DWWebImage
import Foundation

enum RegisteredCodec {
    /// Decodes `data` with `decoder` on the caller's thread: its header against `limits` first (10005 before any
    /// pixel is decoded), then the bitmap (10000 when the decoder refuses the data), whose size is checked again.
    static func decode(_ data: Data, with decoder: any DWImageDecoding, limits: DWProcessingLimits)
        throws(DWWebImageError) -> DWBitmap
    {
        try limits.checkSourceFormat(decoder.format)
        guard let header = decoder.header(data) else {
            throw DWWebImageError(.notAnImage, "\(decoder.format.rawValue) header does not read")
        }
        try Decoder.checkArea(header.width, header.height, limits: limits)
        let bitmap = try decoder.decode(data)
        try Decoder.checkArea(bitmap.width, bitmap.height, limits: limits)
        return bitmap
    }

    /// A libvips image holding a copy of `bitmap`'s pixels (4 bands, sRGB).
    static func vipsImage(_ bitmap: DWBitmap) throws(DWWebImageError) -> VImage {
        try Vips.start()
        let rowBytes = bitmap.width * 4
        var pixels = bitmap.pixels
        if bitmap.bytesPerRow != rowBytes {  // rows with padding: packed for libvips
            var packed = Data(capacity: rowBytes * bitmap.height)
            for row in 0..<bitmap.height {
                let start = bitmap.pixels.startIndex + row * bitmap.bytesPerRow
                packed.append(bitmap.pixels[start..<start + rowBytes])
            }
            pixels = packed
        }
        let (width, height) = (Int32(bitmap.width), Int32(bitmap.height))
        let length = rowBytes * bitmap.height
        return try borrowBytes(pixels) { (bytes: UnsafeRawBufferPointer) throws(DWWebImageError) -> VImage in
            try Vips.make("cannot wrap decoded pixels") {
                cvips_from_memory(bytes.baseAddress!, length, width, height, 4, $0)
            }
        }
    }

    /// `frame` (sRGB, 8 bits, 3 or 4 bands, as ``Decoder/normalize(_:autorotate:keepColorProfile:keepHighBitDepth:)``
    /// leaves it) as an RGBA8 bitmap, computed on the caller's thread.
    static func bitmap(of input: VImage) throws(DWWebImageError) -> DWBitmap {
        var frame = input
        if !frame.isUChar {
            frame = try Decoder.normalize(frame, autorotate: false)
        }
        if !frame.hasAlpha {
            let opaque = frame
            frame = try Vips.make("cannot add alpha") { cvips_bandjoin_const1(opaque.pointer, 255, $0) }
        }
        guard frame.bands == 4, frame.isUChar else {
            throw DWWebImageError(.notAnImage, "decoded to \(frame.bands) bands, not RGBA8")
        }
        var length = 0
        guard let pixels = cvips_write_to_memory(frame.pointer, &length) else { throw Vips.error("cannot decode") }
        defer { cvips_free(pixels) }
        let data = Data(bytes: pixels, count: length)
        guard let bitmap = DWBitmap(width: frame.width, height: frame.height, pixels: data) else {
            throw DWWebImageError(.notAnImage, "decoded \(length) bytes for \(frame.width)×\(frame.height)")
        }
        return bitmap
    }

    /// `image` written by `encoder` on the caller's thread; `quality` as a conversion asked for it, else nil.
    static func encode(_ image: VImage, with encoder: any DWImageEncoding, quality: Int?) throws(DWWebImageError)
        -> Data
    {
        let bitmap = try bitmap(of: image)
        return try encoder.encode(bitmap, quality: quality.map { min(100, max(1, $0)) })
    }
}
