// DWTransformOptions: what an imgproxy-style URL asks to be done to the source, as plain values.
import DWWebImage

/// The processing options of one request, parsed from the URL (see ``DWProxyURL``) and independent of the engine:
/// ``processors(outputFormat:)`` turns them into the pipeline's processors.
public struct DWTransformOptions: Sendable, Equatable {
    /// How a resize meets the box (imgproxy's resizing types).
    public enum ResizeMode: String, Sendable, CaseIterable {
        /// Inside the box, keeping the aspect ratio.
        case fit
        /// Cover the box, keeping the aspect ratio, and crop the centre to exactly the box.
        case fill
        /// Exactly the box, ignoring the aspect ratio.
        case force
    }

    /// How to resize (default fit).
    public var mode: ResizeMode = .fit
    /// Target width in pixels; 0 = follow the height (imgproxy's convention).
    public var width = 0
    /// Target height in pixels; 0 = follow the width.
    public var height = 0
    /// Whether a smaller source may be enlarged to the box.
    public var enlarge = false
    /// Output quality 1–100 for lossy formats; nil = the engine's default.
    public var quality: Int?
    /// The output format asked for in the URL (`f:`, `.ext`, `@ext`); nil = the source's (or auto-format's).
    public var format: DWImageFormat?
    /// Gaussian blur sigma; nil or 0 = none.
    public var blur: Double?

    /// No options.
    public init() {}

    /// Whether the source is served unchanged (apart from a format conversion).
    public var resizes: Bool { width > 0 || height > 0 }
}
