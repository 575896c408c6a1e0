// DWImage+Placeholders: BlurHash and dominant colours, what a server sends before the image itself.
import DWWebImage
import Foundation

extension DWImage {
    /// The image's BlurHash (woltapp/blurhash), e.g. `"LEHV6nWB2yk8pyo0adR*.7kCMdnj"`: `x` × `y` cosine
    /// components (each 1…9; 4 × 3 is the reference's default). Computed from the first frame, decoded
    /// (``bitmap()``) and area-averaged to at most 64 × 64 samples in linear light; alpha is ignored, as the
    /// reference does. Runs on the caller's thread.
    ///
    /// - Throws: 10000 for components outside 1…9 or an image that does not decode; 10005 over the limits.
    public func blurHash(components: (x: Int, y: Int) = (4, 3)) throws(DWWebImageError) -> String {
        guard (1...9).contains(components.x), (1...9).contains(components.y) else {
            throw DWWebImageError(.notAnImage, "BlurHash components must be 1…9, not \(components.x)×\(components.y)")
        }
        return BlurHash.encode(LinearSample(try bitmap()), x: components.x, y: components.y)
    }

    /// The colour covering most of the image (the largest of ``dominantColors(count:)`` with 5 colours): for a
    /// placeholder background. Pixels count by their alpha. Runs on the caller's thread.
    ///
    /// - Throws: 10000 when the image does not decode or has no visible pixel; 10005 over the limits.
    public var dominantColor: DWColor {
        get throws(DWWebImageError) {
            guard let first = try dominantColors(count: 5).first else {
                throw DWWebImageError(.notAnImage, "the image has no visible pixel")
            }
            return first.color
        }
    }

    /// Up to `count` (1…16) main colours of the first frame, largest share first, with the share of the visible
    /// pixels each stands for (k-means in a perceptual space over at most 64 × 64 samples; deterministic). Fewer
    /// when the image has fewer distinct colours. Runs on the caller's thread.
    ///
    /// - Throws: 10000 when the image does not decode; 10005 over the limits.
    public func dominantColors(count: Int = 5) throws(DWWebImageError) -> [DWDominantColor] {
        DominantColors.find(in: LinearSample(try bitmap()), count: max(1, min(16, count)))
    }
}
