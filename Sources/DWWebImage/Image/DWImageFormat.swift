// DWImageFormat: the image formats DWWebImage recognises by their magic bytes.

/// An image format, recognised from the data's first bytes (never from the URL or Content-Type).
public enum DWImageFormat: String, Sendable, CaseIterable, Codable {
    /// PNG (and APNG).
    case png
    /// JPEG / JFIF / EXIF (from SOI; junk between markers is skipped, as libjpeg does).
    case jpeg
    /// GIF 87a / 89a.
    case gif
    /// WebP (lossy, lossless, extended).
    case webp
    /// Windows bitmap.
    case bmp
    /// TIFF and BigTIFF, either byte order (size from the first IFD).
    case tiff
    /// HEIF with HEVC (`ftyp` heic, heix, mif1…).
    case heic
    /// AVIF (`ftyp` avif, avis).
    case avif
    /// Windows icon or cursor (ICO and CUR share the container; entries may be BMP or PNG). The size is the
    /// largest entry's (a PNG entry's own header), as Pillow reports it; the file extension is `ico` for both.
    case ico
    /// Not an image format DWWebImage knows.
    case unknown

    /// The usual file extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .unknown: "bin"
        default: rawValue
        }
    }
}
