// Decoder+Thumbnail: a HEIC/AVIF's embedded thumbnail, for imgproxy's enforce_thumbnail.
import CVips
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
        let thumbnail = try? borrowBytes(data) { bytes throws(DWWebImageError) in
            try Vips.make("cannot decode the \(format.rawValue) thumbnail") {
                cvips_heifload_thumbnail_buffer(bytes.baseAddress!, bytes.count, failOnTruncated, $0)
            }
        }
        guard let thumbnail else { return try open(data, format: format) }
        ownHEIFBlobs(thumbnail)
        try checkArea(thumbnail.width, thumbnail.height, limits: DWImageProcessing.effectiveLimits)
        return thumbnail
    }
}
