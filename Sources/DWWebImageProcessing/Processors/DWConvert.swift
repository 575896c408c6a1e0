// DWConvert: the output format and quality.
import DWWebImage
import Foundation

/// Encodes the result as `format` — JPEG, PNG, WebP, AVIF or GIF (``formats``), or TIFF, HEIC, JPEG XL, BMP or ICO
/// (which imgproxy URLs may ask for; BMP and ICO written as imgproxy's own savers do) — with `quality` (1…100) for the
/// lossy ones (default: the format's ``DWImageFormat/defaultQuality-swift.property``). Transparency becomes white in
/// JPEG. Animated GIFs keep every frame, delay and the loop count when converted to GIF or WebP; other formats take the
/// first frame. A ``DWConvert`` after other processors only changes how their result is encoded (the pixels are not
/// decoded again).
///
/// `process(_:)` runs on the caller's thread; instances are plain values, safe to share.
public struct DWConvert: DWImageProcessor, Hashable {
    /// The output format; nil: the format the image would have anyway (see ``init(quality:)``).
    public let format: DWImageFormat?
    /// The quality (1…100) for lossy output; nil: the format's default.
    public let quality: Int?

    /// The formats a conversion is offered in (``DWImageFormat/conversionTargets``); TIFF, HEIC, JPEG XL, BMP and ICO
    /// are written too.
    public static let formats: [DWImageFormat] = DWImageFormat.conversionTargets

    /// A conversion to `format`, with `quality` (nil: the format's default) for lossy output.
    ///
    /// - Precondition: `quality`, when given, is 1…100. A format the engine does not write is the one error
    ///   `process(_:)` reports for the conversion itself (which formats are written depends on the codecs
    ///   registered when it runs).
    public init(format: DWImageFormat, quality: Int? = nil) {
        precondition(
            quality.map { (1...100).contains($0) } ?? true, "DWConvert needs a quality of 1…100 (got \(quality ?? 0))")
        self.format = format
        self.quality = quality
    }

    /// Only a quality for the format the image keeps (`dwfetch --quality` without `--format`).
    ///
    /// - Precondition: `quality` is 1…100.
    public init(quality: Int) {
        precondition((1...100).contains(quality), "DWConvert needs a quality of 1…100 (got \(quality))")
        self.format = nil
        self.quality = quality
    }

    /// `convert(<format>)`, `convert(<format>,q<quality>)` or `convert(q<quality>)`.
    public var identifier: String {
        switch (format, quality) {
        case (let format?, let quality?): "convert(\(format.rawValue),q\(quality))"
        case (let format?, nil): "convert(\(format.rawValue))"
        case (nil, let quality?): "convert(q\(quality))"
        case (nil, nil): "convert()"
        }
    }

    /// The converted image; 10000 for a format the engine does not write (``DWImageFormat/isConversionWritable``).
    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        try Engine.process(image) { canvas throws(DWWebImageError) in try apply(to: &canvas) }
    }

    func apply(to canvas: inout Canvas) throws(DWWebImageError) {
        try Encoder.checkRequest(format: format, quality: quality)
        if let format { canvas.outputFormat = format }
        if let quality { canvas.quality = quality }
    }
}
