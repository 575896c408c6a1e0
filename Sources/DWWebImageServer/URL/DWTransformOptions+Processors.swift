// The one place URL options become the pipeline's processors.
import DWWebImage

extension DWTransformOptions {
    /// The processors for these options, converting to `outputFormat` when it is given (nil keeps the source's).
    /// An empty chain serves the source's bytes unchanged.
    func processors(outputFormat: DWImageFormat?) -> [any DWImageProcessor] {
        // DWWebImageProcessing (libvips) is not on this branch yet: no transform is possible, so none is asked for.
        []
    }
}
