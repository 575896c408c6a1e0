// DWConvert: the output format and quality.
import DWWebImage
import Foundation

/// Encodes the result as `format` — JPEG, PNG, WebP, AVIF or GIF — with `quality` (1…100) for the lossy ones
/// (default 80). Transparency becomes white in JPEG. Animated GIFs keep every frame, delay and the loop count when
/// converted to GIF or WebP; other formats take the first frame. A ``DWConvert`` after other processors only
/// changes how their result is encoded (the pixels are not decoded again).
///
/// `process(_:)` runs on the caller's thread; instances are plain values, safe to share.
public struct DWConvert: DWImageProcessor, Hashable {
    public let format: DWImageFormat
    public let quality: Int?

    /// The formats ``DWConvert`` writes.
    public static let formats: [DWImageFormat] = [.jpeg, .png, .webp, .avif, .gif]

    /// A conversion to `format`, with `quality` (1…100; nil: 80) for lossy output.
    public init(format: DWImageFormat, quality: Int? = nil) {
        self.format = format
        self.quality = quality
    }

    /// `convert(<format>)` or `convert(<format>,q<quality>)`.
    public var identifier: String { "convert(\(format.rawValue)\(quality.map { ",q\($0)" } ?? ""))" }

    /// The converted image; 10000 for a format it does not write or a quality outside 1…100.
    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        guard Self.formats.contains(format) else {
            throw DWWebImageError(.notAnImage, "cannot convert to \(format.rawValue) (jpeg, png, webp, avif or gif)")
        }
        if let quality, !(1...100).contains(quality) {
            throw DWWebImageError(.notAnImage, "quality must be 1…100 (got \(quality))")
        }
        return try Engine.process(image) { canvas throws(DWWebImageError) in
            canvas.outputFormat = format
            canvas.quality = quality
        }
    }
}
