// DWImageFormat: the image formats DWWebImage recognises by their magic bytes (and those registered codecs add), and
// every fact about each one — the names it goes by, its MIME type and file extension, and whether the processing
// engine can write it.

/// An image format, recognised from the data's first bytes (never from the URL or Content-Type): one of the
/// built-ins, or one an app's codecs handle (``DWImageCodecs``).
///
/// This type is the one place for a format's facts: ``names`` (what `--format`, imgproxy URLs and file
/// extensions call it), ``mimeType``, ``fileExtension``, ``isWritable`` (libvips, or a registered encoder, can save
/// it) and ``conversionTargets`` (what a conversion may ask for). Not an enum: a `switch` over it needs a
/// `default:`. Equal when the raw values are equal; encodes (Codable) as its raw value. Safe on any thread.
public struct DWImageFormat: RawRepresentable, Hashable, Sendable, Codable, CaseIterable {
    /// The format's name, lower case ("png", "jpeg", …, or a registered codec's, e.g. "qoi").
    public let rawValue: String

    /// Never fails: a built-in raw value gives that format; any other (lower-cased) names a format only registered
    /// codecs know, e.g. `DWImageFormat(rawValue: "qoi")`.
    public init(rawValue: String) { self.rawValue = rawValue.lowercased() }

    /// PNG (and APNG).
    public static let png = DWImageFormat(rawValue: "png")
    /// JPEG / JFIF / EXIF (from SOI; junk between markers is skipped, as libjpeg does).
    public static let jpeg = DWImageFormat(rawValue: "jpeg")
    /// GIF 87a / 89a.
    public static let gif = DWImageFormat(rawValue: "gif")
    /// WebP (lossy, lossless, extended).
    public static let webp = DWImageFormat(rawValue: "webp")
    /// Windows bitmap.
    public static let bmp = DWImageFormat(rawValue: "bmp")
    /// TIFF and BigTIFF, either byte order (size from the first IFD).
    public static let tiff = DWImageFormat(rawValue: "tiff")
    /// HEIF with HEVC (`ftyp` heic, heix, mif1…).
    public static let heic = DWImageFormat(rawValue: "heic")
    /// AVIF (`ftyp` avif, avis).
    public static let avif = DWImageFormat(rawValue: "avif")
    /// JPEG XL, the bare codestream (`FF 0A`) or the ISO-BMFF container (`JXL ` box); read and written by libvips'
    /// libjxl module.
    public static let jxl = DWImageFormat(rawValue: "jxl")
    /// Windows icon or cursor (ICO and CUR share the container; entries may be BMP or PNG). The size is the
    /// largest entry's (a PNG entry's own header), as Pillow reports it; the file extension is `ico` for both.
    public static let ico = DWImageFormat(rawValue: "ico")
    /// SVG, a vector format (XML whose root element is `<svg>`, recognised as imgproxy does: see
    /// ``ImageSniffer``). Its size is the intrinsic size librsvg gives at 72 dpi, 0×0 when the document declares
    /// none (its drawing's bounds decide then); the core only downloads and caches it, `DWWebImageProcessing`
    /// rasterises it (libvips' `svgload_buffer`), and nothing writes it.
    public static let svg = DWImageFormat(rawValue: "svg")
    /// Netpbm: PBM, PGM and PPM (ASCII or binary, `P1`…`P6`) and PFM (`PF`, `Pf`), read by libvips' ppmload. `dwfetch
    /// serve` reads it only when `--source-formats` names it (libvips counts the loader as untrusted).
    public static let pnm = DWImageFormat(rawValue: "pnm")
    /// JPEG 2000: the JP2 box file (signature box, `ftyp` jp2 or jpx, the size from `jp2h`/`ihdr`) or the bare
    /// codestream (`FF 4F FF 51`, the size from SIZ), read by libvips' jp2kload (OpenJPEG). A codestream with
    /// subsampled components is refused when decoded (libvips 8.14 reads it out of bounds). `dwfetch serve` reads it
    /// only when `--source-formats` names it (imgproxy does not read it; libvips counts the loader as untrusted).
    public static let jp2 = DWImageFormat(rawValue: "jp2")
    /// FITS, the astronomers' format (`SIMPLE  =` … `T` in the first 80-byte card; the image of the primary header
    /// or, when that has none, of the first extension, tile-compressed included), read by libvips' fitsload
    /// (cfitsio) from a private temporary file. `dwfetch serve` reads it only when `--source-formats` names it
    /// (libvips counts the loader as untrusted; imgproxy does not read it).
    public static let fits = DWImageFormat(rawValue: "fits")
    /// Not an image format DWWebImage knows.
    public static let unknown = DWImageFormat(rawValue: "unknown")

    /// The formats the library itself reads, in a fixed order (``unknown`` last).
    static let builtIns: [DWImageFormat] = [
        .png, .jpeg, .gif, .webp, .bmp, .tiff, .heic, .avif, .jxl, .ico, .svg, .pnm, .jp2, .fits, .unknown
    ]

    /// Whether the library itself knows this format (not only a registered codec).
    package var isBuiltIn: Bool { Self.builtIns.contains(self) }

    /// The built-in formats, then every format with a registered decoder or encoder (in the order registered).
    public static var allCases: [DWImageFormat] { builtIns + DWImageCodecs.registeredFormats }

    /// The usual file extension, without a dot (a registered format's raw value).
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
        case .pnm: ["pnm", "ppm", "pgm", "pbm", "pfm"]
        case .jp2: ["jp2", "j2k", "j2c", "jpc", "jpf", "jpx"]
        case .fits: ["fits", "fit", "fts"]
        case .unknown: []
        default: [rawValue]
        }
    }

    /// The format called `name` (any of its ``names``, any case; a registered format by its raw value); nil for any
    /// other name.
    public init?(name: some StringProtocol) {
        let lowered = name.lowercased()
        guard let format = Self.allCases.first(where: { $0.names.contains(lowered) }) else { return nil }
        self = format
    }

    /// The media type of the format (`Content-Type`): a registered format's decoder's (else its encoder's
    /// `image/<raw value>`); nil for ``unknown`` and for a format nothing registered knows.
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
        case .pnm: "image/x-portable-anymap"
        case .jp2: "image/jp2"
        case .fits: "image/fits"
        case .unknown: nil
        default:
            DWImageCodecs.decoder(for: self)?.mimeType
                ?? (DWImageCodecs.encoder(for: self) == nil ? nil : "image/\(rawValue)")
        }
    }

    /// Whether the processing engine (libvips, without ImageMagick, or a registered encoder) can write the format.
    /// A processed BMP or ICO becomes PNG unless a conversion asks for BMP or ICO (DWConvert writes those itself, as
    /// imgproxy does); a registered format is writable once an encoder for it is registered.
    public var isWritable: Bool {
        switch self {
        case .jpeg, .png, .webp, .gif, .tiff, .heic, .avif, .jxl: true
        case .bmp, .ico, .svg, .pnm, .jp2, .fits, .unknown: false
        default: DWImageCodecs.encoder(for: self) != nil
        }
    }

    /// Whether a conversion may ask for the format (`dwfetch --format`, `DWConvert`, a `serve` URL's format): every
    /// ``isWritable`` format, and BMP and ICO, which the processing engine writes itself as imgproxy's savers do.
    public var isConversionWritable: Bool { isWritable || self == .bmp || self == .ico }

    /// The quality lossy output uses when nothing asks for one and the format has no default of its own: 80.
    public static let defaultQuality = 80

    /// The quality the format is written at when nothing asks for one: imgproxy's defaults (WebP 79, AVIF and HEIC
    /// 63, JPEG XL 77, everything else ``defaultQuality``), so `dwfetch` and `dwfetch serve` agree.
    public var defaultQuality: Int {
        switch self {
        case .webp: 79
        case .avif, .heic: 63
        case .jxl: 77
        default: Self.defaultQuality
        }
    }

    /// The formats a conversion may ask for (`dwfetch --format`, ``DWConvert``-style processors): JPEG, PNG, WebP,
    /// AVIF and GIF, then every format with a registered encoder. (`dwfetch serve` accepts every format it can
    /// write.)
    public static var conversionTargets: [DWImageFormat] {
        [.jpeg, .png, .webp, .avif, .gif] + DWImageCodecs.registeredEncoderFormats
    }

    /// The conversion target called `name` (see ``conversionTargets``); nil for any other name.
    public init?(conversionTargetNamed name: some StringProtocol) {
        guard let format = DWImageFormat(name: name), Self.conversionTargets.contains(format) else { return nil }
        self = format
    }
}

extension DWImageFormat: CustomStringConvertible {
    /// The raw value.
    public var description: String { rawValue }
}
