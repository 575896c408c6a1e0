// MetadataPolicy: which metadata an encoded result keeps (imgproxy's strip_metadata, keep_copyright,
// strip_color_profile).
internal import CVips
import DWWebImage
import Foundation

/// What the encoder writes back of the source's metadata. The default is imgproxy's: EXIF, XMP and IPTC stripped
/// except the EXIF Copyright and Artist, pixels in sRGB without a profile. Used on the processing thread.
struct MetadataPolicy: Sendable, Hashable {
    var strip = true
    var keepCopyright = true
    var keepColorProfile = false
    /// `ph:1`: a 16-bit source stays 16-bit RGB through decoding
    /// (``Decoder/normalize(_:autorotate:keepColorProfile:keepHighBitDepth:)``).
    var keepHighBitDepth = false

    /// The fields kept when stripping with ``keepCopyright`` (libvips rebuilds the EXIF block from `exif-data`
    /// minus every tag without a field).
    static let copyrightFields: Set<String> = ["exif-data", "exif-ifd0-Copyright", "exif-ifd0-Artist"]

    /// Whether `name` is a metadata field the policy drops (libvips' own fields such as `page-height`, `delay` and
    /// `loop` always stay: the savers need them).
    func drops(_ name: String) -> Bool {
        if name == "icc-profile-data" { return !keepColorProfile }
        guard strip else { return false }
        let isMetadata =
            name.hasPrefix("exif-") || name == "xmp-data" || name == "iptc-data" || name == "orientation"
            || name.hasPrefix("png-comment-") || name.hasPrefix("heif-")
        guard isMetadata else { return false }
        return !(keepCopyright && Self.copyrightFields.contains(name))
    }

    /// `image` with the dropped fields removed (a copy: the input may be shared with a cached canvas), and whether
    /// anything is left to write (if not, the caller strips everything).
    func apply(to image: VImage) throws(DWWebImageError) -> (image: VImage, keepsAny: Bool) {
        let copy = try Vips.make("cannot copy the image") { cvips_copy(image.pointer, $0) }
        let names = cvips_field_names(copy.pointer)
        defer { cvips_strfreev(names) }
        var keepsAny = false
        var index = 0
        while let pointer = names[index] {
            let name = String(cString: pointer)
            if drops(name) {
                cvips_remove(copy.pointer, name)
            } else if name == "icc-profile-data" || (name.hasPrefix("exif-") && name != "exif-data")
                || name == "xmp-data" || name == "iptc-data"
            {
                keepsAny = true  // `exif-data` alone (no tag kept) is not worth an EXIF block
            }
            index += 1
        }
        return (copy, keepsAny)
    }
}
