// DWImageFacts: what an image is, read from its first bytes — without downloading or keeping the rest.
import Foundation

/// An image's facts from its headers (``DWWebImageManager/facts(withURL:options:)``): enough to lay out a page,
/// choose a variant or refuse an upload before its body is fetched.
public struct DWImageFacts: Sendable, Equatable {
    /// The format, from the magic bytes.
    public var format: DWImageFormat
    /// Width and height in pixels as stored (before EXIF orientation).
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// Frames and loop count as far as the bytes read show them: exact for single-frame formats and for APNG's
    /// and animated WebP's declared counts; for a GIF read only in part, the frames seen so far (at least 1).
    public var frameCount: Int
    public var loopCount: Int
    /// One play of an animation (the sum of its frame delays, 10 ms or less counted as 100 ms, as browsers play
    /// them); 0 for a still image; nil when the bytes read do not hold every frame's delay (a GIF or an APNG/WebP
    /// whose later frame headers lie past the head that was read).
    public var duration: TimeInterval?
    /// Orientation 1…8 as EXIF numbers it (1 when there is none), from a JPEG's APP1, a PNG's eXIf, a WebP's EXIF
    /// chunk, a TIFF's first IFD or a JPEG XL header (not HEIF's `irot`/`imir`); 5…8 swap width and height on display.
    public var orientation: Int
    /// The whole image's size in bytes, when the server said (Content-Range's total, or Content-Length); nil if not.
    public var byteCount: Int64?
    /// Bytes actually read to learn this.
    public var bytesRead: Int
    /// Whether the whole body was read (the server ignored the Range request and the image was small, or the
    /// image is smaller than the head asked for).
    public var isComplete: Bool

    /// Facts from a whole image already held (a cache hit).
    init(_ image: DWImage) {
        format = image.format
        pixelWidth = image.pixelWidth
        pixelHeight = image.pixelHeight
        frameCount = image.frameCount
        loopCount = image.loopCount
        duration = image.duration
        orientation = image.data.withUnsafeBytes { ExifOrientation.read($0, format: image.format) } ?? 1
        byteCount = Int64(image.data.count)
        bytesRead = 0
        isComplete = true
    }

    /// Facts from the first bytes of an image; nil when they do not tell.
    init?(head: Data, byteCount: Int64?, isComplete: Bool) {
        guard let info = ImageSniffer.inspect(head) else { return nil }
        format = info.format
        pixelWidth = info.width
        pixelHeight = info.height
        frameCount = info.frameCount
        loopCount = info.loopCount
        duration = Self.duration(head: head, info: info, isComplete: isComplete)
        orientation = head.withUnsafeBytes { ExifOrientation.read($0, format: info.format) } ?? 1
        self.byteCount = byteCount
        bytesRead = head.count
        self.isComplete = isComplete
    }

    /// The duration the head shows: 0 for one frame; for an APNG or WebP, when every declared frame's delay was
    /// read; for a GIF, when the whole file was read.
    private static func duration(head: Data, info: ImageInfo, isComplete: Bool) -> TimeInterval? {
        guard info.frameCount > 1 else { return 0 }
        if info.format == .gif {
            return isComplete ? (try? DWImage(data: head))?.duration : nil
        }
        guard let timeline = AnimationTimeline.read(head, format: info.format),
            timeline.delays.count >= info.frameCount
        else { return nil }
        return timeline.delays.prefix(info.frameCount).reduce(0, +)
    }
}
