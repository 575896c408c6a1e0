// ProcessingOptions+Chain: the processor chain the pixel flags make, on DWWebImageProcessing (libvips).
import DWFetchCLI
import DWWebImage
import DWWebImageProcessing

extension ProcessingOptions {
    /// The chain of the flags' ``DWTransform`` through the one builder the library and `dwfetch serve` use: resize,
    /// blur, grayscale, tint, round corners (in output pixels), then the encoding (format and quality).
    var processors: [any DWImageProcessor] { transform.processors() }
}
