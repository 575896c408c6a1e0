// DWMetadataOptions: imgproxy's strip_metadata, keep_copyright, strip_color_profile and enforce_thumbnail when they
// differ from the defaults: what is read of the source and what of its metadata the result keeps.
import DWWebImage
import Foundation

/// The metadata the result keeps; first in a chain, so that the steps after it (which take over its canvas) encode
/// with the same policy. Without it every result is written as imgproxy's defaults say: EXIF, XMP and IPTC stripped
/// except the EXIF Copyright and Artist, pixels converted to sRGB, no ICC profile. With `enforceThumbnail` a HEIC or
/// AVIF source is read from its embedded thumbnail (first in the chain, so every later step works on it).
///
/// `process(_:)` runs on the caller's thread; instances are plain values, safe to share.
public struct DWMetadataOptions: DWImageProcessor, Hashable {
    /// `strip_metadata`: drop EXIF, XMP and IPTC.
    public let stripMetadata: Bool
    /// `keep_copyright`: when stripping, keep the EXIF Copyright and Artist.
    public let keepCopyright: Bool
    /// `strip_color_profile`: convert to sRGB and drop the ICC profile (false: keep the source's profile and pixels).
    public let stripColorProfile: Bool
    /// `enforce_thumbnail`: a HEIC or AVIF with an embedded thumbnail is read from it instead of its primary image.
    public let enforceThumbnail: Bool
    /// `preserve_hdr` as it applies (``DWTransform/keepsHighBitDepth``): a 16-bit RGB or grey source is decoded to
    /// RGB16 or grey16 (not 8-bit sRGB), and written in 16 bits by an output format that has them.
    public let preserveHDR: Bool

    /// A policy from imgproxy's options.
    public init(
        stripMetadata: Bool, keepCopyright: Bool, stripColorProfile: Bool, enforceThumbnail: Bool = false,
        preserveHDR: Bool = false
    ) {
        (self.stripMetadata, self.keepCopyright, self.stripColorProfile) = (
            stripMetadata, keepCopyright, stripColorProfile
        )
        (self.enforceThumbnail, self.preserveHDR) = (enforceThumbnail, preserveHDR)
    }

    /// Whether these are imgproxy's defaults (then no step is needed).
    public var isDefault: Bool {
        stripMetadata && keepCopyright && stripColorProfile && !enforceThumbnail && !preserveHDR
    }

    /// `metadata(sm:N,kcr:N,scp:N)`, then `,eth:1` with ``enforceThumbnail``, `,ph:1` with ``preserveHDR``.
    public var identifier: String {
        "metadata(sm:\(stripMetadata ? 1 : 0),kcr:\(keepCopyright ? 1 : 0),scp:\(stripColorProfile ? 1 : 0)"
            + (enforceThumbnail ? ",eth:1" : "") + (preserveHDR ? ",ph:1)" : ")")
    }

    /// The image re-encoded in its own output format with this policy.
    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        try Engine.process(image) { canvas throws(DWWebImageError) in try apply(to: &canvas) }
    }

    func apply(to canvas: inout Canvas) throws(DWWebImageError) {
        canvas.metadata = MetadataPolicy(
            strip: stripMetadata, keepCopyright: keepCopyright,
            keepColorProfile: !stripColorProfile, keepHighBitDepth: preserveHDR)
        canvas.enforceThumbnail = enforceThumbnail
    }
}
