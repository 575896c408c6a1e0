// The first frame of a DWImage as pixels, for rendering.
import DWWebImage

extension DWImage {
    /// The first frame, decoded: GIFs by the core's giflib decoder; other formats need an engine
    /// (`DWWebImageProcessing`'s `bitmap()`).
    func previewBitmap() throws(DWWebImageError) -> DWBitmap {
        if format == .gif, let animation = animatedImage(bufferCount: 1), animation.frameCount > 0 {
            return animation.frame(at: 0).bitmap
        }
        throw DWWebImageError(.notAnImage, "no decoder for \(format) here yet (DWWebImageProcessing decodes it)")
    }
}
