// DWImageCodecs: still-image decoders and encoders an app registers for formats the library does not know, consulted
// by format sniffing, DWImage(data:), bitmap(), verifyDecodes(), every processor and `serve`.
import DWLocking
import Foundation

/// The header facts a decoder reads without decoding pixels (a still image: one frame, loop count 0).
public struct DWImageHeader: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// A header of `width` × `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// Reads one still-image format the library does not know (Nuke's `ImageDecoding`, Kingfisher's and SDWebImage's
/// coders). Once registered it is used by format sniffing (`DWImage(data:)`, the pipeline's validation,
/// `facts(withURL:)`, dwfetch's --json), `bitmap()`, `verifyDecodes()` (dwfetch --verify), every processor
/// (DWWebImageProcessing) and `serve`. Built-in formats are tried first.
///
/// Thread: any (the transfer thread or work queue when the pipeline validates, the caller's thread for
/// `DWImage(data:)`, `bitmap()` and processors); called concurrently: must be thread-safe.
public protocol DWImageDecoding: Sendable {
    /// The format read, e.g. `DWImageFormat(rawValue: "qoi")`.
    var format: DWImageFormat { get }
    /// Its media type (`DWImageFormat.mimeType`, `serve`'s Content-Type), e.g. "image/qoi".
    var mimeType: String { get }
    /// The size its header declares, or nil when `data` is not this format (wrong magic, header cut short).
    /// Header only (quick): `data` may be the first 64 KiB of a body. Limits (maxPixelCount, DWProcessingLimits)
    /// are checked on this before `decode` is ever called.
    func header(_ data: Data) -> DWImageHeader?
    /// The whole image: RGBA8, straight alpha, sRGB, top row first. Throws 10000 (`.notAnImage`) for truncated or
    /// corrupt data; that is what makes `verifyDecodes()` / `--verify` refuse a broken file.
    func decode(_ data: Data) throws(DWWebImageError) -> DWBitmap
}

/// Writes one still-image format. Used by processors whose output is that format: a processed image keeps a
/// registered source format when an encoder is registered (else PNG), and `DWConvert(format:)` may name it.
///
/// Thread: the caller's (the work queue for the pipeline's variants); called concurrently: must be thread-safe.
public protocol DWImageEncoding: Sendable {
    /// The format written.
    var format: DWImageFormat { get }
    /// `bitmap` is RGBA8, straight alpha, sRGB, top row first. `quality`: 1…100 when a conversion asked for one,
    /// else nil; a lossless format ignores it.
    func encode(_ bitmap: DWBitmap, quality: Int?) throws(DWWebImageError) -> Data
}

/// The process-wide codec registry (a lock inside; any thread). Register at start-up, before the first request
/// that needs the format: an image already sniffed as unknown stays refused.
public enum DWImageCodecs {
    private struct Registry {
        var decoders: [DWImageFormat: any DWImageDecoding] = [:]
        var encoders: [DWImageFormat: any DWImageEncoding] = [:]
        /// Formats in the order first registered (decoder or encoder).
        var order: [DWImageFormat] = []
        /// Decoders of formats that are not built in, in registration order (what sniffing tries).
        var sniffers: [any DWImageDecoding] = []

        mutating func note(_ format: DWImageFormat) {
            if !format.isBuiltIn, !order.contains(format) { order.append(format) }
        }
    }

    private static let registry = DWLock(Registry())

    /// Adds (or replaces) the decoder for `decoder.format`.
    public static func register(decoder: any DWImageDecoding) {
        registry.withLock { registry in
            registry.decoders[decoder.format] = decoder
            registry.note(decoder.format)
            registry.sniffers.removeAll { $0.format == decoder.format }
            if !decoder.format.isBuiltIn { registry.sniffers.append(decoder) }
        }
    }

    /// Adds (or replaces) the encoder for `encoder.format`.
    public static func register(encoder: any DWImageEncoding) {
        registry.withLock { registry in
            registry.encoders[encoder.format] = encoder
            registry.note(encoder.format)
        }
    }

    /// The decoder registered for `format`, if any.
    public static func decoder(for format: DWImageFormat) -> (any DWImageDecoding)? {
        registry.withLock { $0.decoders[format] }
    }

    /// The encoder registered for `format`, if any.
    public static func encoder(for format: DWImageFormat) -> (any DWImageEncoding)? {
        registry.withLock { $0.encoders[format] }
    }

    /// Formats that are not built in with a registered decoder or encoder, in registration order.
    static var registeredFormats: [DWImageFormat] { registry.withLock { $0.order } }

    /// Formats that are not built in with a registered encoder, in registration order.
    static var registeredEncoderFormats: [DWImageFormat] {
        registry.withLock { registry in registry.order.filter { registry.encoders[$0] != nil } }
    }

    /// The first registered decoder (of a format that is not built in) whose header reads `data`, and that header.
    static func sniff(_ data: Data) -> (decoder: any DWImageDecoding, header: DWImageHeader)? {
        let sniffers = registry.withLock { $0.sniffers }
        for decoder in sniffers {
            if let header = decoder.header(data) { return (decoder, header) }
        }
        return nil
    }

    /// The registered decoder that reads `image`'s format when it is not a built-in one.
    package static func externalDecoder(for format: DWImageFormat) -> (any DWImageDecoding)? {
        format.isBuiltIn ? nil : decoder(for: format)
    }

    /// The registered encoder that writes `format` when it is not a built-in one.
    package static func externalEncoder(for format: DWImageFormat) -> (any DWImageEncoding)? {
        format.isBuiltIn ? nil : encoder(for: format)
    }
}
