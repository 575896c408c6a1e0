// DWImage: a validated image — the original bytes plus what its headers say.
import Foundation

/// A downloaded (or cached) image: the original bytes, their format and the pixel size read from the headers.
///
/// Construct one with ``init(data:maxPixelCount:)``, which validates the bytes; the pipeline never hands out a
/// `DWImage` for data that is not an image.
public struct DWImage: Sendable, Equatable {
    /// The original bytes, exactly as served.
    public var data: Data { box.fields.data }
    /// The format, from the magic bytes.
    public var format: DWImageFormat { box.fields.format }
    /// Width in pixels (of the logical screen, for animations).
    public var pixelWidth: Int { box.fields.pixelWidth }
    /// Height in pixels (of the logical screen, for animations).
    public var pixelHeight: Int { box.fields.pixelHeight }
    /// Number of frames: 1 for still images; the frame count of an animated GIF, APNG or WebP.
    public var frameCount: Int { box.fields.frameCount }
    /// How many times an animation plays: 0 = forever (and 0 for still images). For GIF this is the NETSCAPE2.0
    /// value n, counted as plays the way SDWebImage and ImageIO count (browsers play n + 1 times), and 1 when the
    /// file has no NETSCAPE2.0 block (play once). See ``DWAnimatedImagePlayer/LoopMode``.
    public var loopCount: Int { box.fields.loopCount }
    /// Where this instance came from: the network, the memory cache or the disk cache.
    public internal(set) var source: DWImageSource {
        get { box.fields.source }
        set { edit { $0.source = newValue } }
    }
    /// How the download went (attempts, status, bytes, time); nil for cache hits.
    public internal(set) var metrics: DWDownloadMetrics? {
        get { box.fields.metrics }
        set { edit { $0.metrics = newValue } }
    }
    /// For a variant the pipeline rendered for this request: the format and size of the original it was made from
    /// (so a caller never reads the original again to report them); nil for an original and for a variant from a
    /// cache. Not part of equality.
    public internal(set) var original: DWImageOriginal? {
        get { box.fields.original }
        set { edit { $0.original = newValue } }
    }
    /// For GIF: its frames, loops and duration, and giflib's index of it (made when first needed); nil for other
    /// formats. Not part of equality.
    var gif: GIFStructure? { box.fields.gif }
    /// For GIF: the structure giflib reads (frames, timing, loops), made on first use; nil for other formats.
    var gifIndex: GIFIndex? { gif?.index(of: data, release: releasesWindows) }
    /// The cache and key whose decoded tier `bitmap()` reads and fills: set on an image the manager delivered (the
    /// request's cache key: the URL, a `.cacheKey`, or the variant's key); nil otherwise. Not part of equality.
    package internal(set) var decodedTier: (cache: DWWebImageCache, key: String)? {
        get { box.fields.decodedTier }
        set { edit { $0.decodedTier = newValue } }
    }
    /// Whether the library made this image from bytes no one outside it has held, so full passes over a mapped
    /// body may release what they have read (see ``FileBytes``). Not part of equality.
    var releasesWindows: Bool { box.fields.releasesWindows }
    /// The body-only cache entry holding exactly these bytes, when this instance was read from or written to one
    /// (see ``DWCacheEntryFile``); nil otherwise. Not part of equality.
    package internal(set) var entryFile: DWCacheEntryFile? {
        get { box.fields.entryFile }
        set { edit { $0.entryFile = newValue } }
    }
    /// What the response a download ended with says for a cache entry (validators, type, Cache-Control; after a
    /// 304 the revalidated entry's, updated), for the cache tiers to store with the bytes; nil for cache hits. A
    /// reference, so an image carries one word for it. Not part of equality.
    var responseMetadata: ResponseMetadata? {
        get { box.fields.responseMetadata }
        set { edit { $0.responseMetadata = newValue } }
    }

    /// Everything an image holds. A value passes through the pipeline some thirty times (results, callbacks,
    /// caches); held in one copy-on-write box, each of those copies is one retain instead of a dozen.
    private struct Fields {
        let data: Data
        let format: DWImageFormat
        let pixelWidth: Int
        let pixelHeight: Int
        let frameCount: Int
        let loopCount: Int
        let gif: GIFStructure?
        let releasesWindows: Bool
        var source: DWImageSource = .network
        var metrics: DWDownloadMetrics?
        var original: DWImageOriginal?
        var decodedTier: (cache: DWWebImageCache, key: String)?
        var entryFile: DWCacheEntryFile?
        var responseMetadata: ResponseMetadata?
    }

    /// Holds the fields; written only while uniquely referenced (copy-on-write), so never while shared.
    private final class Box: @unchecked Sendable {
        // @unchecked: `fields` is mutated only through DWImage's setters after isKnownUniquelyReferenced, i.e. while
        // no other value (and so no other thread) can reach this box; every field is itself Sendable. For the same
        // reason no access to it overlaps another, and the runtime's dynamic exclusivity check is off.
        @exclusivity(unchecked) var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    /// Applies `change` to the fields, copying them first when another value shares them.
    private mutating func edit(_ change: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
        change(&box.fields)
    }

    /// Validates `data` and reads its header.
    ///
    /// A GIF is also walked record by record (no pixels are decoded), so ``frameCount`` and ``loopCount`` are
    /// giflib's view, and a GIF giflib cannot read a complete frame of is rejected here. (A well-formed GIF is
    /// walked in Swift, giflib reading it only when its frames are first asked for: the same facts, less work.)
    ///
    /// - Throws: ``DWWebImageError`` 10000 when the bytes are not a recognisable image with a sane size,
    ///   10005 when `pixelWidth × pixelHeight` exceeds `maxPixelCount` (for GIF also: a frame rect over it, or
    ///   more frames or total frame area than ``DWAnimatedImage/Limits/default`` allows; never for SVG, a vector:
    ///   the engine checks the size it rasterises at).
    public init(data: Data, maxPixelCount: Int = DWImage.defaultMaxPixelCount) throws(DWWebImageError) {
        try self.init(data: data, maxPixelCount: maxPixelCount, releasable: false)
    }

    /// Maps the file at `path` (read-only, private) and validates it as ``init(data:maxPixelCount:)`` does.
    /// ``data`` then costs memory only where it is read, and the library's own passes over it — the GIF scan and
    /// decoder, ``forEachDataWindow(_:)`` — release what they have read, so decoding a large animation from a file
    /// does not keep the whole file resident.
    ///
    /// - Throws: ``DWWebImageError`` 10003 (``DWWebImageError/Code/transport``, as a `file://` URL that cannot be
    ///   read) when the file cannot be opened or mapped or is not a regular file, its message naming the path and
    ///   the system's reason; otherwise as ``init(data:maxPixelCount:)``. (10008 is the cache's own I/O only.)
    public init(contentsOfFile path: String, maxPixelCount: Int = DWImage.defaultMaxPixelCount) throws(DWWebImageError)
    {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw DWWebImageError.file("open", path, errno: errno)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw DWWebImageError.file("stat", path, errno: errno)
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw DWWebImageError.file("read", path, "not a regular file")
        }
        let data: Data
        if st.st_size == 0 {
            data = Data()
        } else if let mapped = FileBytes.map(fd: fd, length: Int(st.st_size)) {
            data = mapped
        } else {
            throw DWWebImageError.file("map", path, errno: errno)
        }
        try self.init(data: data, maxPixelCount: maxPixelCount, releasable: true)
    }

    /// The designated initialiser; `releasable`: the library made `data` and nobody else has held it.
    init(data: Data, maxPixelCount: Int, releasable: Bool) throws(DWWebImageError) {
        // A GIF's frames and loops come from GIFStructure below (GIFIndex, which releases what it has walked, for
        // a large mapped file).
        let info: ImageInfo
        switch ImageSniffer.examine(data, walkingGIF: false) {
        case .success(let read): info = read
        case .failure(let failure): throw DWWebImageError.notAnImage(nil, bytes: data.count, detail: failure.reason)
        }
        // An SVG's size is not pixels decoded here: the engine checks the size it rasterises at against its limits.
        let pixels = info.width.multipliedReportingOverflow(by: info.height)
        if info.format != .svg, pixels.overflow || pixels.partialValue > maxPixelCount {
            let count = pixels.overflow ? Int64.max : Int64(pixels.partialValue)
            throw DWWebImageError.tooLarge(
                nil, size: count, limit: Int64(maxPixelCount),
                what: "\(info.width)×\(info.height) pixel count")
        }
        var gif: GIFStructure?
        var frames = (info.frameCount, info.loopCount)
        if info.format == .gif {
            var limits = DWAnimatedImage.Limits.default
            limits.maxPixelCount = maxPixelCount
            let structure = try GIFStructure(data: data, limits: limits, release: releasable)
            gif = structure
            frames = (structure.frameCount, structure.loopCount)
        }
        box = Box(
            Fields(
                data: data, format: info.format, pixelWidth: info.width, pixelHeight: info.height,
                frameCount: frames.0, loopCount: frames.1, gif: gif, releasesWindows: releasable))
    }

    /// Images are equal when their bytes and header facts are; ``source`` is not compared.
    public static func == (lhs: DWImage, rhs: DWImage) -> Bool {
        lhs.data == rhs.data && lhs.format == rhs.format && lhs.pixelWidth == rhs.pixelWidth
            && lhs.pixelHeight == rhs.pixelHeight && lhs.frameCount == rhs.frameCount && lhs.loopCount == rhs.loopCount
    }

    /// The same image, its decoded form kept in `cache`'s decoded tier under `key` (see ``decodedTier``).
    func keepingDecoded(in cache: DWWebImageCache, key: String) -> DWImage {
        var copy = self
        copy.decodedTier = (cache, key)
        return copy
    }

    /// The same image, marked as coming from `source`.
    func from(_ source: DWImageSource, metrics: DWDownloadMetrics? = nil) -> DWImage {
        var copy = self
        copy.source = source
        copy.metrics = metrics
        return copy
    }

    /// The same image, marked as rendered from `original`.
    func rendered(from original: DWImage) -> DWImage {
        var copy = self
        copy.original = DWImageOriginal(
            format: original.format, pixelWidth: original.pixelWidth,
            pixelHeight: original.pixelHeight, frameCount: original.frameCount)
        return copy
    }

    /// 64 megapixels per frame, the default decode limit.
    public static let defaultMaxPixelCount = 64 * 1024 * 1024
}

extension DWImage {
    /// An image validated from bytes the pipeline mapped or read itself and has not handed out, so that a pass
    /// over its data may release each window (see ``releasesWindows``).
    static func validated(data: Data, maxPixelCount: Int) throws(DWWebImageError) -> DWImage {
        try DWImage(data: data, maxPixelCount: maxPixelCount, releasable: true)
    }

    /// Calls `body` with ``data`` a window at a time (8 MiB), in order.
    ///
    /// Large bodies (a finished resumable download, a big disk-cache entry) are file mappings: a pass through
    /// this method releases each window after `body` returns, so hashing or writing out a 1 GB image costs a few
    /// MiB of memory, where `data.withUnsafeBytes` would make all of it resident. Small images are one window.
    public func forEachDataWindow(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try FileBytes.forEachWindow(of: data, release: releasesWindows) { window in
            try body(window)
            return true
        }
    }
}
