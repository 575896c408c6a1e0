// DWImageProcessing: settings of the libvips engine — limits checked before decoding, threads per transform.
// A transform (DWTransform) is what the engine renders (DWTransform.plan()): its module comes with the engine's, so
// `import DWWebImageProcessing` is all a library user writes.
@_exported import DWImageTransform
internal import CVips
import DWLocking
import DWWebImage
import Foundation

/// What a decode may cost, checked from the header facts before libvips (or any decoder) sees the bytes.
public struct DWProcessingLimits: Sendable, Equatable {
    /// Pixels of one frame (width × height); more is 10005. The download core checks its own
    /// ``DWWebImageManager/Configuration/maxPixelCount`` (same default) before an image is kept.
    public var maxPixelCount: Int
    /// Frames of an animation; more is 10005.
    public var maxFrameCount: Int
    /// Frames × frame area of an animation (every frame is decoded); more is 10005.
    public var maxTotalPixelCount: Int
    /// Pixels of one frame of an animated source (more than one frame), in place of ``maxPixelCount`` when smaller;
    /// more is 10005. nil (default): ``maxPixelCount`` alone. imgproxy's `IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION`
    /// (`dwfetch serve --max-animation-frame-pixels`).
    public var maxAnimationFramePixelCount: Int?
    /// Bytes of the encoded image; more is 10005.
    public var maxByteCount: Int
    /// Frames of an animation that are decoded and processed (default: all); the rest are dropped, as imgproxy's
    /// `IMGPROXY_MAX_ANIMATION_FRAMES` does. `dwfetch serve` sets `--max-animation-frames` when given (without it,
    /// a plan's ``DWVariantPlan/framePixelBudget`` decides per source).
    public var maxProcessedFrames = Int.max
    /// Pixels an SVG is rendered to at most when the request does not enlarge it: a larger render is scaled down to
    /// this (imgproxy's `IMGPROXY_MAX_SRC_RESOLUTION` for vectors); nil: ``maxPixelCount``. `dwfetch serve` sets
    /// the smaller of `--max-pixels` and `--max-result-pixels`.
    public var maxVectorPixels: Int?

    /// CPU seconds one SVG rasterisation may use (librsvg, in its helper process: ``DWSVGRenderer``); over it the
    /// render is killed and the call fails with 10005. Default 5; `dwfetch serve` sets `--render-budget`.
    public var renderBudget: TimeInterval = 5
    /// The source formats (as sniffed from the bytes) any decoder or loader may be run on; nil (default): every
    /// format the engine reads. Another format is refused with 10000 before anything reads it; `dwfetch serve` sets
    /// `--source-formats`.
    public var sourceFormats: Set<DWImageFormat>?

    /// Refuses `format` (10000) when ``sourceFormats`` does not list it.
    public func checkSourceFormat(_ format: DWImageFormat) throws(DWWebImageError) {
        guard let sourceFormats, !sourceFormats.contains(format) else { return }
        throw DWWebImageError(
            .notAnImage,
            "\(format.rawValue) sources are not allowed here (allowed: "
                + "\(sourceFormats.map(\.rawValue).sorted().joined(separator: ", ")))")
    }

    /// The pixel count an SVG is scaled down to when not enlarged: ``maxVectorPixels`` within ``maxPixelCount``.
    public var vectorPixelCap: Int { min(maxVectorPixels ?? maxPixelCount, maxPixelCount) }

    /// The defaults: 64 MP per frame (the core's decode limit), 1,000 frames, 64 MP over all frames (256 MB of
    /// RGBA), 64 MiB of encoded bytes.
    public init(
        maxPixelCount: Int = DWImage.defaultMaxPixelCount, maxFrameCount: Int = 1_000,
        maxTotalPixelCount: Int = 64 * 1024 * 1024, maxByteCount: Int = 64 * 1024 * 1024
    ) {
        self.maxPixelCount = maxPixelCount
        self.maxFrameCount = maxFrameCount
        self.maxTotalPixelCount = maxTotalPixelCount
        self.maxByteCount = maxByteCount
    }
}

/// Process-wide settings of the processing engine (libvips, started on first use).
///
/// Settings are guarded by one lock and may be changed from any thread; a change applies to transforms that start
/// afterwards.
public enum DWImageProcessing {
    private struct Settings {
        var limits = DWProcessingLimits()
        var threadsPerTransform = 1
        var encoder = DWEncoderSettings()
    }

    private static let settings = DWLock(Settings())

    /// How every output is written beyond its quality (progressive JPEG, interlaced or quantised PNG, the savers'
    /// efforts); a server sets it once at start. Transforms that start afterwards use it.
    public static var encoderSettings: DWEncoderSettings {
        get { settings.withLock { $0.encoder } }
        set { settings.withLock { $0.encoder = newValue } }
    }

    /// The process-wide default limits every processor, ``DWImage/bitmap()`` and ``DWImage/verifyDecodes()`` check
    /// first, unless the call runs inside ``process(_:with:limits:)``, whose limits apply instead.
    public static var limits: DWProcessingLimits {
        get { settings.withLock { $0.limits } }
        set { settings.withLock { $0.limits = newValue } }
    }

    /// Runs `processor` on `image` on the caller's thread, every check inside it against `limits` instead of the
    /// process-wide ``limits``: a server passes its own limits per request and never changes the global ones.
    public static func process(
        _ image: DWImage, with processor: any DWImageProcessor,
        limits: DWProcessingLimits
    ) throws(DWWebImageError) -> DWImage {
        let result = $scopedLimits.withValue(limits) { () -> Result<DWImage, DWWebImageError> in
            do throws(DWWebImageError) { return .success(try processor.process(image)) } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Runs `body` on the caller's thread with every check inside it against `limits` (as
    /// ``process(_:with:limits:)`` does for a processor): for what a server computes outside a processor, such as
    /// the size of an SVG for `/info` or a result check.
    public static func withLimits<T>(_ limits: DWProcessingLimits, _ body: () throws(DWWebImageError) -> T)
        throws(DWWebImageError) -> T
    {
        let result = $scopedLimits.withValue(limits) { () -> Result<T, DWWebImageError> in
            do throws(DWWebImageError) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The limits of the innermost ``process(_:with:limits:)`` on this thread (or task), nil outside one.
    @TaskLocal private static var scopedLimits: DWProcessingLimits?

    /// The limits a check made now uses: the scoped ones inside ``process(_:with:limits:)``, else ``limits``.
    static var effectiveLimits: DWProcessingLimits { scopedLimits ?? limits }

    /// libvips worker threads per transform (`vips_concurrency_set`); default 1. The pipeline already runs one
    /// transform per core, and imgproxy measured, as `bench/pixels/run` does here, that more threads per transform
    /// only add contention under load; a single large image on an idle machine is the case where 2+ helps. With 2+ on
    /// libvips 8.14 to 8.15.3, a failure in the last strips a worker computes can be missed (its thread pool reads the
    /// error flag before that worker ends; fixed in 8.15.4): a damaged source may then give an image instead of an
    /// error. With 1 there is one worker and no such window. Any thread.
    public static var threadsPerTransform: Int {
        get { settings.withLock { $0.threadsPerTransform } }
        set {
            let threads = max(1, newValue)
            settings.withLock { $0.threadsPerTransform = threads }
            if Vips.started { cvips_concurrency_set(Int32(threads)) }
        }
    }

    /// libvips' own memory accounting (`vips_tracked_get_mem`, `…_highwater`, `…_allocs`): bytes allocated now, the
    /// most so far, and the allocations live now. Any thread.
    public static var libvipsMemory: (bytes: Int, highWater: Int, allocations: Int) {
        _ = Vips.started
        return (Int(cvips_tracked_mem()), Int(cvips_tracked_mem_highwater()), Int(cvips_tracked_allocs()))
    }

    /// The libvips version in use, e.g. "8.14.1".
    public static var libvipsVersion: String {
        _ = Vips.started
        return String(cString: cvips_version())
    }
}
