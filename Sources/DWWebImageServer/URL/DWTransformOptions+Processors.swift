// The one place URL options become the pipeline's processors (DWWebImageProcessing, on libvips).
import DWWebImage
import DWWebImageProcessing

extension DWTransformOptions {
    /// The processors for these options, in imgproxy's order (resize, blur, encode), converting to `outputFormat`
    /// when it is given (nil keeps the source's). An empty chain serves the source's bytes unchanged.
    func processors(outputFormat: DWImageFormat?) -> [any DWImageProcessor] {
        var chain: [any DWImageProcessor] = []
        if resizes {
            let mode: DWResizeMode = switch self.mode {
            case .fit: .fit
            case .fill: .fill
            case .force: .force
            }
            chain.append(DWResize(width: width > 0 ? width : nil, height: height > 0 ? height : nil, mode: mode,
                                  enlarge: enlarge))
        }
        if let blur { chain.append(DWBlur(sigma: blur)) }
        if let outputFormat {
            chain.append(DWConvert(format: outputFormat, quality: quality))
        } else if let quality {
            chain.append(DWSourceFormatQuality(quality: quality))
        }
        return chain
    }
}

/// `q:` without a format: encode in the source's own format (PNG for one DWConvert does not write) at `quality`.
struct DWSourceFormatQuality: DWImageProcessor {
    let quality: Int

    var identifier: String { "convert(source,q\(quality))" }

    func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        let format = DWConvert.formats.contains(image.format) ? image.format : .png
        return try DWConvert(format: format, quality: quality).process(image)
    }
}
