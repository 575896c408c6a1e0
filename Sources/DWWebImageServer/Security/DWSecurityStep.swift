// DWSecurityStep: a URL's own security options checked against the source, first in its chain.
import DWWebImage

/// Runs ``DWSecurityOptions/check(_:processedFrames:)`` on the source (its header facts: nothing is decoded) and
/// passes it on unchanged. Its identifier names the options, so a URL's `maf` (which changes the frames written) is
/// its own variant. `process(_:)` runs on the pipeline's processing queue, inside a ``DWServedProcessor``.
struct DWSecurityStep: DWImageProcessor {
    let options: DWSecurityOptions
    /// Frames of an animation processed: the URL's `maf`, else the server's `--max-animation-frames`.
    let maxFrames: Int
    /// The output format (nil: the source's own).
    let outputFormat: DWImageFormat?

    var identifier: String { options.identifier }

    func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        let keepsFrames = DWResultLimits.keepsFrames(outputFormat ?? image.format) && image.frameCount > 1
        try options.check(image, processedFrames: keepsFrames ? min(image.frameCount, maxFrames) : 1)
        return image
    }
}
