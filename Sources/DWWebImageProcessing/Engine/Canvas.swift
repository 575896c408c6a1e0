// Canvas: an image between decode and encode — its frames as libvips images, timing, and the output wanted.
internal import CVips
import DWWebImage
import Foundation

/// What processors work on: the frames (sRGB, 8-bit, 3 or 4 bands, all the same size), the animation's timing,
/// and the format and quality the result will be encoded in.
///
/// A canvas starts *pending* (``source`` set, no frames) so that a resize can shrink on load from the encoded
/// bytes; any other operation decodes it first (``decode()``). Frames are lazy libvips pipelines; ``keepAlive``
/// holds the encoded buffers they still read from (libvips does not copy a buffer it loads from).
struct Canvas: Sendable {
    var frames: [VImage] = []
    /// Per-frame display times (animations only).
    var delays: [TimeInterval] = []
    /// The source GIF's NETSCAPE2.0 loop value (0 = forever; nil: no block, play once).
    var netscapeLoopCount: Int?
    /// The encoded image this canvas has not decoded yet; nil once ``frames`` is filled.
    var source: DWImage?
    /// The format of the original image.
    let sourceFormat: DWImageFormat
    /// The format the result is encoded in (the source's own, unless a processor changed it).
    var outputFormat: DWImageFormat
    /// Quality for lossy output; nil: ``DWImageFormat/defaultQuality-swift.property``.
    var quality: Int?
    /// The metadata the encoder writes back (set before decoding: a kept colour profile skips the sRGB conversion).
    var metadata = MetadataPolicy()
    /// Decode a HEIC/AVIF source's embedded thumbnail instead of its primary image (imgproxy's `enforce_thumbnail`;
    /// set before decoding).
    var enforceThumbnail = false
    /// A JPEG source is decoded at this DCT scale (1, 2, 4 or 8: set before decoding, by a step that shrinks past it).
    var jpegShrink = 1
    var keepAlive: [Data] = []

    /// A pending canvas for `image` (limits are checked here, before anything is decoded).
    init(pending image: DWImage) throws(DWWebImageError) {
        try Decoder.checkLimits(image, limits: DWImageProcessing.effectiveLimits)
        source = image
        sourceFormat = image.format
        outputFormat = Encoder.defaultOutputFormat(for: image)
    }

    var width: Int { frames.first?.width ?? 0 }
    var height: Int { frames.first?.height ?? 0 }
    var hasAlpha: Bool { frames.first?.hasAlpha ?? false }

    /// Decodes a pending canvas (every frame of a GIF; the first of anything else).
    mutating func decode() throws(DWWebImageError) {
        guard let image = source else { return }
        let decoded = try Decoder.decode(
            image, keepColorProfile: metadata.keepColorProfile,
            thumbnail: enforceThumbnail, keepHighBitDepth: metadata.keepHighBitDepth,
            jpegShrink: jpegShrink)
        frames = decoded.frames
        delays = decoded.delays
        netscapeLoopCount = decoded.netscapeLoopCount
        keepAlive.append(contentsOf: decoded.keepAlive)
        source = nil
    }

    /// Decodes if needed, then replaces every frame with `transform(frame)`.
    mutating func mapFrames(_ transform: (VImage) throws(DWWebImageError) -> VImage) throws(DWWebImageError) {
        try decode()
        var result: [VImage] = []
        result.reserveCapacity(frames.count)
        for frame in frames { result.append(try transform(frame)) }
        frames = result
    }
}
