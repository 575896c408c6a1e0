// DWPlaceholderURI: /info's `lqip` — a tiny blurred-looking copy of the image as a `data:` URI a page can inline.
import DWWebImage
import DWWebImageProcessing

/// A low-quality image placeholder: the first frame fitted to `width` pixels across, written as WebP at a low
/// quality, as a `data:image/webp;base64,…` URI of at most 4 KiB (quality lowered until it fits). Runs on the
/// caller's thread (a worker of the server's pool), under the server's limits.
enum DWPlaceholderURI {
    /// The longest URI answered.
    static let maxLength = 4096

    /// The URI for `image` at `width` (4…64) pixels across; 10000 when even the lowest quality does not fit.
    static func make(_ image: DWImage, width: Int) throws(DWWebImageError) -> String {
        var transform = DWTransform()
        (transform.width, transform.format, transform.stripMetadata) = (width, .webp, true)
        for quality in [40, 20, 5] {
            transform.quality = quality
            let small = try transform.plan().process(image)
            let uri = "data:image/webp;base64," + small.data.base64EncodedString()
            if uri.utf8.count <= maxLength { return uri }
        }
        throw DWWebImageError(.notAnImage, "no placeholder of \(width) pixels fits \(maxLength) bytes")
    }
}
