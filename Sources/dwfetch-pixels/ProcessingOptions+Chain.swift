// ProcessingOptions+Chain: the processor chain the pixel flags make, on DWWebImageProcessing (libvips).
import DWFetchCLI
import DWWebImage
import DWWebImageProcessing

extension ProcessingOptions {
    /// The chain, in a fixed order: resize, blur, grayscale, tint, round corners (in output pixels), then the
    /// encoding (format and quality).
    var processors: [any DWImageProcessor] {
        var chain: [any DWImageProcessor] = []
        if let resize, let size = Self.parseSize(resize) {
            chain.append(DWResize(width: size.width, height: size.height, mode: fill ? .fill : .fit))
        }
        if let blur { chain.append(DWBlur(sigma: blur)) }
        if grayscale { chain.append(DWGrayscale()) }
        if let tint, let colour = Self.parseTint(tint) {
            chain.append(DWTint(red: colour.r, green: colour.g, blue: colour.b, alpha: colour.a))
        }
        if let round { chain.append(DWRoundCorners(radius: round)) }
        if let format, let parsed = Self.parseFormat(format) {
            chain.append(DWConvert(format: parsed, quality: quality))
        } else if let quality {
            chain.append(DWConvert(quality: quality))
        }
        return chain
    }
}
