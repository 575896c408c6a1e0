// DWAnimatedImage+Registry: which decoder makes the frame source of an APNG or animated WebP (registered by
// DWWebImageProcessing), and the delay rule every format shares.
import DWLocking
import Foundation

/// Makes the frame source of an image of one format; registered with ``DWAnimatedImage/register(_:decoder:)``.
/// Runs on the thread that asks for ``DWImage/animatedImage(bufferCount:)``; reads structure only.
public typealias DWAnimationDecoder =
    @Sendable (DWImage, DWAnimatedImage.Limits) throws(DWWebImageError)
    -> any DWAnimatedFrameSource

extension DWAnimatedImage {
    /// Decoders for formats the core cannot composite itself (WebP and APNG, registered by DWWebImageProcessing).
    private static let decoders = DWLock<[DWImageFormat: DWAnimationDecoder]>([:])

    /// Registers `decoder` for `format` process-wide (replacing an earlier one);
    /// ``DWImage/animatedImage(bufferCount:)`` uses it for that format. GIF is always the core's own. Thread-safe.
    public static func register(_ format: DWImageFormat, decoder: @escaping DWAnimationDecoder) {
        guard format != .gif else { return }
        decoders.withLock { $0[format] = decoder }
    }

    /// A frame's delay as browsers show it, for every format: 10 ms or less (including none) becomes 100 ms.
    public static func browserDelay(_ seconds: TimeInterval) -> TimeInterval {
        seconds <= 0.010 + 1e-9 ? 0.1 : seconds
    }

    /// The decoder registered for `format`, if any.
    static func decoder(for format: DWImageFormat) -> DWAnimationDecoder? {
        decoders.withLock { $0[format] }
    }
}
