// DWImageOriginal: what a rendered variant was made from.
/// The format, pixel size and frame count of the original a variant was rendered from (``DWImage/original``).
/// A plain value.
public struct DWImageOriginal: Sendable, Equatable {
    /// The original's format.
    public let format: DWImageFormat
    /// The original's width in pixels (of the logical screen, for animations).
    public let pixelWidth: Int
    /// The original's height in pixels (of the logical screen, for animations).
    public let pixelHeight: Int
    /// The original's frames (1 for a still image): with the variant's own, how many frames the render dropped.
    public let frameCount: Int
}
