// FrameFilters+Thumbor: thumbor's byte-level filters (sharpen, noise, curve) run on an 8-bit RGB(A) copy, as
// thumbor runs its C extensions on Pillow's RGB(A) bytes.
internal import CVips
import DWImageTransform
import DWWebImage
import Foundation

extension FrameOps {
    /// `filter` (``DWPixelFilter/waveletSharpen(amount:radius:luminanceOnly:)``, ``DWPixelFilter/noise(amount:seed:)``
    /// or ``DWPixelFilter/curve(all:red:green:blue:)``) on `frame`'s pixels: a grey frame becomes RGB first, as
    /// thumbor's `image_data_as_rgb` makes it; the alpha band is untouched. Runs on the processing thread.
    static func thumborBytes(_ filter: DWPixelFilter, _ frame: VImage) throws(DWWebImageError) -> VImage {
        var image = frame
        if colourBands(image) == 1 {
            let source = image
            image = try Vips.make("cannot convert to sRGB") {
                cvips_colourspace(source.pointer, VipsInterpretation.sRGB, $0)
            }
        }
        if !image.isUChar {
            let source = image
            image = try Vips.make("cannot convert to 8 bits") { cvips_cast_uchar(source.pointer, $0) }
        }
        var length = 0
        guard let raw = cvips_write_to_memory(image.pointer, &length) else { throw Vips.error("cannot filter") }
        let (width, height, bands) = (image.width, image.height, image.bands)
        var pixels = [UInt8](UnsafeRawBufferPointer(start: raw, count: length))
        cvips_free(raw)
        guard width > 0, height > 0, pixels.count >= width * height * bands, bands >= 3 else {
            throw Vips.error("cannot filter: unexpected pixel layout")
        }
        switch filter {
        case .waveletSharpen(let amount, let radius, let luminanceOnly):
            ThumborPixels.sharpen(
                &pixels, width: width, height: height, stride: bands, amount: amount, radius: radius,
                luminanceOnly: luminanceOnly)
        case .noise(let amount, let seed):
            let seed = seed > 0 ? seed : Int.random(in: 1...Int(Int32.max))
            ThumborPixels.noise(&pixels, stride: bands, amount: amount, seed: seed)
        case .curve(let all, let red, let green, let blue):
            ThumborPixels.curve(&pixels, stride: bands, all: all, red: red, green: green, blue: blue)
        default: return frame
        }
        return try borrowBytes(pixels) { (bytes: UnsafeRawBufferPointer) throws(DWWebImageError) -> VImage in
            try Vips.make("cannot filter") {
                cvips_from_memory(
                    bytes.baseAddress!, width * height * bands, Int32(width), Int32(height), Int32(bands), $0)
            }
        }
    }
}
