// DWImageFormat's capabilities as a writer: what an output in the format keeps (imgproxy's type descriptor), in one
// place for the engine, the format choice and the server's limits.

extension DWImageFormat {
    /// Whether an output in this format keeps an animation's frames (GIF, WebP); any other takes the first frame.
    public var savesAnimation: Bool { self == .gif || self == .webp }

    /// Whether an output in this format keeps transparency as the engine writes it (every format but JPEG; BMP and
    /// ICO are written with 32-bit pixels).
    public var savesAlpha: Bool { self != .jpeg }

    /// Whether imgproxy counts the format as having alpha when it picks a preferred format (its `SupportsAlpha`:
    /// neither JPEG nor BMP).
    public var isPreferredForAlpha: Bool { self != .jpeg && self != .bmp }

    /// Whether an output in this format keeps 16 bits per band (imgproxy's `SupportsHDR`: PNG, TIFF, AVIF at 12 bits,
    /// JPEG XL).
    public var savesHighBitDepth: Bool { [.png, .tiff, .avif, .jxl].contains(self) }

    /// Whether the quality changes the output's size (JPEG, WebP, AVIF, HEIC, JPEG XL).
    public var isLossy: Bool { [.jpeg, .webp, .avif, .heic, .jxl].contains(self) }

    /// Whether the format's bytes are already entropy-coded, so that gzip would not shrink them (JPEG, PNG, GIF, WebP,
    /// HEIC, AVIF, JPEG XL, JPEG 2000): the disk cache's `.auto` compression stores these as they are.
    /// (A switch: an array literal's `contains` allocated the array on every call, once per cache write.)
    public var isCompressed: Bool {
        switch self {
        case .jpeg, .png, .gif, .webp, .heic, .avif, .jxl, .jp2: true
        default: false
        }
    }
}
