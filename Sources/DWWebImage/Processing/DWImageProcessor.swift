// DWImageProcessor: the seam between the core pipeline and an image-processing engine (DWWebImageProcessing).
import Foundation

/// Turns one image into another: a resize, a crop, a format conversion…
///
/// The core pipeline knows only this protocol; the engine (libvips, in the `DWWebImageProcessing` product) provides
/// the processors. Pass them with ``DWWebImageOptions/processors(_:)``: the pipeline applies them in order after the
/// download is validated, off the transfer thread and off the callback queue, and caches the result under
/// ``DWImageProcessors/cacheKey(url:processors:)`` beside the original.
///
/// - important: ``identifier`` must be stable across processes and must change whenever the output would: the same
///   identifier always gives the same output for the same input. It is part of the cache key.
/// - note: `process(_:)` may be called on any thread, concurrently for different images.
public protocol DWImageProcessor: Sendable {
    /// A stable name for this processor and its parameters, e.g. `"resize(256x256,fill)"`. Must not contain `|`.
    var identifier: String { get }
    /// The processed image: a real encoded image whose `data` decodes and whose facts describe the output.
    /// - Throws: ``DWWebImageError`` (10000 when the input does not decode, 10005 when a limit is exceeded).
    func process(_ image: DWImage) throws(DWWebImageError) -> DWImage
}

/// A processor that can run a whole chain it starts in one go: the engine's processors (`DWWebImageProcessing`)
/// run consecutive steps on one decoded canvas and encode once, so a chain never re-encodes between its steps.
/// ``DWImageProcessors/apply(_:to:)`` hands a chain whose first processor conforms to it.
public protocol DWChainRendering: DWImageProcessor {
    /// `chain` (which starts with this processor) applied to `image`; runs on the caller's thread.
    func render(_ chain: [any DWImageProcessor], from image: DWImage) throws(DWWebImageError) -> DWImage
}

/// Helpers for chains of processors.
public enum DWImageProcessors {
    /// The identifiers of a chain, joined by `|` (empty for no processors).
    public static func identifier(of processors: [any DWImageProcessor]) -> String {
        processors.map(\.identifier).joined(separator: "|")
    }

    /// The cache key of a processed variant: `"<n>:<url>@<m>:<identifier>|…"` (each part prefixed with its UTF-8
    /// byte count, so no URL, however it uses "@" or "|", can spell another request's key); the URL itself without
    /// processors.
    public static func cacheKey(url: String, processors: [any DWImageProcessor]) -> String {
        processors.isEmpty ? url : CacheKey.variant(url: url, identifiers: processors.map(\.identifier))
    }

    /// The cache key of something kept beside `url`'s variants under `identifiers` (no processor needed: a server's
    /// `/info` answer, say), spelled as ``cacheKey(url:processors:)`` spells a variant's.
    public static func cacheKey(url: String, identifiers: [String]) -> String {
        identifiers.isEmpty ? url : CacheKey.variant(url: url, identifiers: identifiers)
    }

    /// Applies `processors` in order (a chain that starts with a ``DWChainRendering`` processor is handed to it).
    public static func apply(
        _ processors: [any DWImageProcessor], to image: DWImage
    ) throws(DWWebImageError) -> DWImage {
        if let renderer = processors.first as? any DWChainRendering {
            return try renderer.render(processors, from: image)
        }
        var current = image
        for processor in processors { current = try processor.process(current) }
        return current
    }
}
