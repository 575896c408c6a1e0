// DWImageFormat: the image formats DWWebImage recognises by their magic bytes.

/// An image format, recognised from the data's first bytes (never from the URL or Content-Type).
public enum DWImageFormat: String, Sendable, CaseIterable, Codable {
    /// PNG (and APNG).
    case png
    /// JPEG / JFIF / EXIF.
    case jpeg
    /// GIF 87a / 89a.
    case gif
    /// WebP (lossy, lossless, extended).
    case webp
    /// Windows bitmap.
    case bmp
    /// TIFF, either byte order.
    case tiff
    /// HEIF with HEVC (`ftyp` heic, heix, mif1…).
    case heic
    /// AVIF (`ftyp` avif, avis).
    case avif
    /// Windows icon or cursor (ICO/CUR; entries may be BMP or PNG).
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
