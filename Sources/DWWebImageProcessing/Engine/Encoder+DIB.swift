// Encoder+DIB: BMP and ICO output, which libvips cannot write without ImageMagick — written as imgproxy's own savers
// (vips/bmpsave.c, vips/icosave.c) write them.
internal import CVips
import DWWebImage
import Foundation

extension Encoder {
    /// An uncompressed BMP as imgproxy's `bmpsave`: a BITMAPV5HEADER (sRGB, masks for B, G, R, A), top-down rows,
    /// 24 bits per pixel (32 with alpha), rows padded to 4 bytes. `image` is sRGB, 8-bit, 3 or 4 bands.
    static func saveBMP(_ image: VImage) throws(DWWebImageError) -> Data {
        let (pixels, bands) = try packed(image)
        let width = image.width, height = image.height, bpp = bands * 8
        let stride = (width * bands + 3) & ~3
        let headerLength = 124, offset = 14 + headerLength, size = offset + stride * height
        var out = Data(capacity: size)
        out += Array("BM".utf8)
        out += le32(size) + le32(0) + le32(offset)
        out += le32(headerLength) + le32(width) + le32(-height) + le16(1) + le16(bpp)
        out += le32(0) + le32(stride * height) + le32(0) + le32(0) + le32(0) + le32(0)  // BI_RGB, no palette
        out += le32(0x00FF_0000) + le32(0x0000_FF00) + le32(0x0000_00FF) + le32(0xFF00_0000)  // R, G, B, A masks
        out += Array("BGRs".utf8)  // LCS_sRGB, little-endian 'sRGB'
        out += Data(count: 36 + 12)  // endpoints and gamma: unused with sRGB
        out += le32(4) + le32(0) + le32(0) + le32(0)  // intent LCS_GM_IMAGES, no profile
        var row = [UInt8](repeating: 0, count: stride)
        for y in 0..<height {
            for x in 0..<width {
                let s = (y * width + x) * bands, d = x * bands
                (row[d], row[d + 1], row[d + 2]) = (pixels[s + 2], pixels[s + 1], pixels[s])
                if bands == 4 { row[d + 3] = pixels[s + 3] }
            }
            out += row
        }
        return out
    }

    /// An ICO holding one PNG entry, as imgproxy's `icosave`; over 256 pixels a side is refused (10005).
    static func saveICO(_ image: VImage, metadata: MetadataPolicy) throws(DWWebImageError) -> Data {
        guard image.width <= 256, image.height <= 256 else {
            throw DWWebImageError(
                .tooLarge, "ICO images are at most 256×256 (got \(image.width)×\(image.height))",
                size: Int64(max(image.width, image.height)), limit: 256)
        }
        let png = try save(image, format: .png, quality: 100, metadata: metadata)
        var out = Data([0, 0, 1, 0, 1, 0])  // ICONDIR: reserved, type 1 (icon), one image
        out += [UInt8(image.width % 256), UInt8(image.height % 256), 0, 0]  // 0 means 256; no palette
        out += le16(1) + le16(32) + le32(png.count) + le32(6 + 16)
        out += png
        return out
    }

    /// The computed pixels of an 8-bit image with 3 or 4 bands (other band counts are made 3 or 4 first).
    private static func packed(_ input: VImage) throws(DWWebImageError) -> ([UInt8], Int) {
        var image = input
        if image.bands != 3 && image.bands != 4 {
            image = try Decoder.normalize(image, autorotate: false)
        }
        var length = 0
        guard let bytes = cvips_write_to_memory(image.pointer, &length) else { throw Vips.error("cannot encode bmp") }
        defer { cvips_free(bytes) }
        let pixels = [UInt8](UnsafeRawBufferPointer(start: bytes, count: length))
        guard pixels.count == image.width * image.height * image.bands else {
            throw .failed("cannot encode bmp", reason: "unexpected pixel layout")
        }
        return (pixels, image.bands)
    }

    private static func le32(_ value: Int) -> [UInt8] {
        let v = UInt32(truncatingIfNeeded: value)
        return [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
}
