// MetadataStep: imgproxy's strip_metadata, keep_copyright, strip_color_profile, enforce_thumbnail and preserve_hdr
// when they differ from the defaults: what is read of the source and what of its metadata the result keeps.
import DWWebImage
import Foundation

/// The metadata a plan's result keeps (``DWTransform``'s `sm`, `kcr`, `scp`, `eth` and `ph` fields), the first step
/// on the plan's canvas: it decides what the decode reads, and every later step encodes with its policy. Without it
/// every result is written as imgproxy's defaults say: EXIF, XMP and IPTC stripped except the EXIF Copyright and
/// Artist, pixels converted to sRGB, no ICC profile. With `enforceThumbnail` a HEIC or AVIF source is read from its
/// embedded thumbnail. A plain value, applied on the rendering thread.
struct MetadataStep: CanvasStep, Hashable {
    /// `strip_metadata`: drop EXIF, XMP and IPTC.
    let stripMetadata: Bool
    /// `keep_copyright`: when stripping, keep the EXIF Copyright and Artist.
    let keepCopyright: Bool
    /// `strip_color_profile`: convert to sRGB and drop the ICC profile (false: keep the source's profile and pixels).
    let stripColorProfile: Bool
    /// `enforce_thumbnail`: a HEIC or AVIF with an embedded thumbnail is read from it instead of its primary image.
    let enforceThumbnail: Bool
    /// `preserve_hdr` as it applies (``DWTransform/keepsHighBitDepth``): a 16-bit RGB or grey source is decoded to
    /// RGB16 or grey16 (not 8-bit sRGB), and written in 16 bits by an output format that has them.
    let preserveHDR: Bool

    /// Whether these are imgproxy's defaults (then no step is needed).
    var isDefault: Bool {
        stripMetadata && keepCopyright && stripColorProfile && !enforceThumbnail && !preserveHDR
    }

    func apply(to canvas: inout Canvas) throws(DWWebImageError) {
        canvas.metadata = MetadataPolicy(
            strip: stripMetadata, keepCopyright: keepCopyright,
            keepColorProfile: !stripColorProfile, keepHighBitDepth: preserveHDR)
        canvas.enforceThumbnail = enforceThumbnail
    }
}
