// Decoder+Thumbnail: a HEIC/AVIF's embedded thumbnail, for imgproxy's enforce_thumbnail.
internal import CVips
import DWWebImage
import Foundation

extension Decoder {
    /// The embedded thumbnail of a HEIC or AVIF, opened as ``open(_:format:sequential:)`` opens an image (the size
    /// libvips reports checked against the limits); the primary image when it has none or the thumbnail cannot be
    /// read (as imgproxy falls back to a normal load); other formats are opened as they are. `data` must outlive the
    /// image. Runs on the caller's (processing) thread.
    static func openThumbnail(_ data: Data, format: DWImageFormat) throws(DWWebImageError) -> VImage {
        guard format == .heic || format == .avif else { return try open(data, format: format) }
        try Vips.start()
        guard let thumbnail = try? openEmbeddedThumbnail(data) else { return try open(data, format: format) }
        try checkArea(thumbnail.width, thumbnail.height, limits: DWImageProcessing.effectiveLimits)
        return thumbnail
    }

    /// A HEIC or AVIF's embedded thumbnail (libvips gives the primary image when there is none), its metadata
    /// blobs made its own (``ownHEIFBlobs(_:)``). `data` must outlive the image. Caller's thread.
    static func openEmbeddedThumbnail(_ data: Data) throws(DWWebImageError) -> VImage {
        let thumbnail = try borrowBytes(data) { bytes throws(DWWebImageError) in
            try Vips.make("cannot decode the HEIF thumbnail") {
                cvips_heifload_thumbnail_buffer(bytes.baseAddress!, bytes.count, failOnTruncated, $0)
            }
        }
        ownHEIFBlobs(thumbnail)
        return thumbnail
    }

    /// Whether `image` would still shrink (by more than 1 in both directions) to fit `width` × `height` by
    /// ``VipsSize`` `size` and ``VipsInteresting`` `crop` (not none: fill the box): libvips' test for using
    /// a HEIF's embedded thumbnail (`vips_thumbnail_open`: never enlarge a thumbnail the full image would not need).
    static func shrinks(_ image: VImage, toWidth width: Int, height: Int, size: Int32, crop: Int32) -> Bool {
        guard image.width > 0, image.height > 0, width > 0, height > 0 else { return false }
        let h = Double(image.width) / Double(width), v = Double(image.height) / Double(height)
        if size == VipsSize.force { return h > 1 && v > 1 }  // each axis on its own
        let shrink = crop != VipsInteresting.none ? min(h, v) : max(h, v)
        return shrink > 1
    }
}
