// DWImageFormat: the image formats DWWebImage recognises by their magic bytes, and every fact about each one —
// the names it goes by, its MIME type and file extension, and whether the processing engine can write it.

/// An image format, recognised from the data's first bytes (never from the URL or Content-Type).
///
/// This type is the one place for a format's facts: ``names`` (what `--format`, imgproxy URLs and file
/// extensions call it), ``mimeType``, ``fileExtension``, ``isWritable`` (libvips can save it) and
/// ``conversionTargets`` (what a conversion may ask for). Values and static members are plain constants, safe on
/// any thread.
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
    /// JPEG XL, the bare codestream (`FF 0A`) or the ISO-BMFF container (`JXL ` box); read and written by libvips'
    /// libjxl module.
    case jxl
    /// Windows icon or cursor (ICO and CUR share the container; entries may be BMP or PNG). The size is the
    /// largest entry's (a PNG entry's own header), as Pillow reports it; the file extension is `ico` for both.
    case ico
    /// SVG, a vector format (XML whose root element is `<svg>`, recognised as imgproxy does: see
    /// ``ImageSniffer``). Its size is the intrinsic size librsvg gives at 72 dpi, 0×0 when the document declares
    /// none (its drawing's bounds decide then); the core only downloads and caches it, `DWWebImageProcessing`
    /// rasterises it (libvips' `svgload_buffer`), and nothing writes it.
    case svg
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

    /// The names the format goes by, lower case: its raw value first, then aliases (`jpg` for JPEG). Empty for
    /// ``unknown``.
    public var names: [String] {
        switch self {
        case .jpeg: ["jpeg", "jpg"]
        case .unknown: []
        default: [rawValue]
        }
    }

    /// The format called `name` (any of its ``names``, any case); nil for any other name.
    public init?(name: some StringProtocol) {
        let lowered = name.lowercased()
        guard let format = Self.allCases.first(where: { $0.names.contains(lowered) }) else { return nil }
        self = format
    }

    /// The media type of the format (`Content-Type`); nil for ``unknown``.
    public var mimeType: String? {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .jxl: "image/jxl"
        case .bmp: "image/bmp"
        case .tiff: "image/tiff"
        case .heic: "image/heic"
        case .ico: "image/x-icon"
        case .svg: "image/svg+xml"
        case .unknown: nil
        }
    }

    /// Whether the processing engine (libvips, without ImageMagick) can write the format. A processed BMP or ICO
    /// becomes PNG unless a conversion asks for BMP or ICO (DWConvert writes those itself, as imgproxy does).
    public var isWritable: Bool {
        switch self {
        case .jpeg, .png, .webp, .gif, .tiff, .heic, .avif, .jxl: true
        case .bmp, .ico, .svg, .unknown: false
        }
    }

    /// The formats a conversion may ask for (`dwfetch --format`, an imgproxy URL's extension or `format:`
    /// option, ``DWConvert``-style processors): JPEG, PNG, WebP, AVIF and GIF.
    public static let conversionTargets: [DWImageFormat] = [.jpeg, .png, .webp, .avif, .gif]

    /// The conversion target called `name` (see ``conversionTargets``); nil for any other name.
    public init?(conversionTargetNamed name: some StringProtocol) {
        guard let format = DWImageFormat(name: name), Self.conversionTargets.contains(format) else { return nil }
        self = format
    }
}
