// ProcessingOptions+Plan: the variant plan the pixel flags make, on DWWebImageProcessing (libvips).
import DWFetchCLI
import DWWebImage
import DWWebImageProcessing

extension ProcessingOptions {
    /// The flags' ``DWTransform`` as its variant plan (none without pixel flags), as the library and `dwfetch serve`
    /// make it: resize, blur, grayscale, tint, round corners on one canvas, then the encoding (format and quality).
    var processors: [any DWImageProcessor] { transform.processors() }
}
