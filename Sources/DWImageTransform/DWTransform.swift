// DWTransform: the one transform value — what to do to an image's pixels and encoding, as plain data (no engine).
import DWWebImage

/// Everything a request asks to be done to an image, by imgproxy's option names, as plain values: `dwfetch`'s pixel
/// flags, the library and `dwfetch serve`'s URLs all make one of these, and the engine (`DWWebImageProcessing`'s
/// `DWTransform.plan(watermark:)`) turns it into one variant plan, rendered on one canvas, so the same request is the
/// same cache key and the same bytes from all three. Defaults are imgproxy's; ``identifier`` names exactly the fields
/// that differ from them.
///
/// A plain value: build and read it on any thread.
public struct DWTransform: Sendable, Hashable {
    // MARK: Geometry (imgproxy's names in brackets)
    /// How the image meets the box [`rt`] (default fit).
    public var resizingType: DWResizeMode = .fit
    /// Box width [`w`]; 0: follow the height (or the source's, for force).
    public var width = 0
    /// Box height [`h`]; 0: follow the width.
    public var height = 0
    /// The result is at least this wide/high [`mw`, `mh`] (before the DPR), even when that breaks the box.
    public var minWidth = 0, minHeight = 0
    /// Multipliers of the size [`z`] (applied with the box).
    public var zoomX = 1.0, zoomY = 1.0
    /// Device pixel ratio [`dpr`]: multiplies the box, paddings and offsets.
    public var dpr = 1.0
    /// Whether an image smaller than the box may be scaled up [`el`].
    public var enlarge = false
    /// Grow the canvas to the box [`ex`]; nil: off.
    public var extend: DWExtend?
    /// Grow the canvas to the box's aspect ratio [`exar`]; nil: off.
    public var extendAspectRatio: DWExtend?
    /// Where the fill crop (and a crop without its own gravity) sits [`g`].
    public var gravity = DWGravity.center
    /// Crop before resizing [`c`]: pixels (≥ 1) or a fraction (< 1) of the source's width/height; 0: the whole side.
    public var cropWidth = 0.0, cropHeight = 0.0
    /// The crop's own gravity; nil: ``gravity``.
    public var cropGravity: DWGravity?
    /// Cut a uniform border first [`t`]; nil: off.
    public var trim: DWTrim?
    /// Padding added last [`pd`], in pixels before the DPR.
    public var padding = DWPadding()
    /// Apply the EXIF orientation [`ar`] (default true).
    public var autoRotate = true
    /// Clockwise rotation after the EXIF orientation [`rot`]: 0, 90, 180 or 270.
    public var rotate = 0
    /// Mirror left-right / top-bottom [`fl`].
    public var flipHorizontal = false, flipVertical = false
    /// thumbor's `adaptive-…fit-in`: the box's sides are swapped when the (cropped) source leans the other way than
    /// the box (a portrait source in a landscape box, or the reverse); only with both sides set.
    public var adaptiveBox = false
    /// thumbor's `full-fit-in`: scaled to cover the box as ``DWResizeMode/fill`` scales, and not cropped to it.
    public var coverUncropped = false
    /// The point of the source the fill crop centres on, in place of ``gravity`` (thumbor's focal points); nil: off.
    public var focalPoint: DWFocalPoint?

    // MARK: Pixels
    /// Fill colour for transparency and for extend/padding [`bg`]; nil: transparent where the format allows, else
    /// white.
    public var background: DWColor?
    /// Gaussian blur sigma [`bl`], sharpen sigma [`sh`]; 0: none.
    public var blur = 0.0, sharpen = 0.0
    /// Pixelate block size [`pix`]; 0 or 1: none.
    public var pixelate = 0
    /// Brightness -255…255, contrast and saturation multipliers [`a`] (imgproxy Pro's adjust).
    public var brightness = 0, contrast = 1.0, saturation = 1.0
    /// Monochrome [`mc`]; nil: off.
    public var monochrome: DWMonochrome?
    /// The watermark's placement [`wm`]; nil: none. The image is the server's `--watermark FILE`.
    public var watermark: DWWatermarkPlacement?
    /// `dwfetch --grayscale`, `--tint`, `--round` (applied after imgproxy's steps, in that order).
    public var grayscale = false
    /// `dwfetch --tint`: RGBA components 0…1 blended over the image.
    public var tint: [Double]?
    /// `dwfetch --round`: transparent rounded corners of this radius (one that is not a finite number ≥ 0: none).
    public var roundCorners: Double?
    /// Colour filters imgproxy has no option for (thumbor's), in order, after imgproxy's filters.
    public var pixelFilters: [DWPixelFilter] = []

    // MARK: Encoding and handling
    /// Output format [`f`]; nil: the source's (PNG for one the engine does not write).
    public var format: DWImageFormat?
    /// thumbor's `autojpg()` (its `AUTO_PNG_TO_JPG`): with no ``format`` and no format negotiated from `Accept`, a PNG
    /// source without an alpha channel is written as JPEG.
    public var pngToJPEG = false
    /// Quality for every format [`q`]; nil: per format (``formatQuality``, then the engine's defaults).
    public var quality: Int?
    /// Per-format qualities [`fq`] (a server's `--format-quality` joins here).
    public var formatQuality: [DWImageFormat: Int] = [:]
    /// Re-encode at lower qualities until the result fits [`mb`]; 0: no limit.
    public var maxBytes = 0
    /// Never answer more bytes than the source [`nl`]: a result in the source's format and size that is no smaller
    /// is replaced by the source itself (when the metadata rules let the source's bytes out). `mb` implies it.
    public var neverLarger = false
    /// How many times an animated result plays [`lp`]: 0 = forever, 1 = once, N = N times (WebP's ANIM loop count;
    /// a GIF gets NETSCAPE2.0 N − 1, none for 1); nil: the source's own.
    public var loopCount: Int?
    /// Metadata handling [`sm`, `kcr`, `scp`]: strip EXIF/XMP/IPTC, keep the EXIF Copyright and Artist when stripping,
    /// convert to sRGB and drop the ICC profile.
    public var stripMetadata = true, keepCopyright = true, stripColorProfile = true
    /// Read a HEIC or AVIF source from its embedded thumbnail, when it has one [`eth`].
    public var enforceThumbnail = false
    /// Keep a 16-bit source's bit depth when the output format has it (PNG, TIFF, AVIF, JPEG XL) [`ph`].
    public var preserveHDR = false
    /// Source formats served unprocessed [`skp`].
    public var skipProcessing: Set<DWImageFormat> = []
    /// Changes the cache key and nothing else [`cb`].
    public var cacheBuster = ""
    /// At most this many frames of an animation are processed (a server setting; 0: no limit of its own).
    public var maxAnimationFrames = 0
    /// The result's longest side at most this many pixels, scaled down to fit as imgproxy's `max_result_dimension`
    /// [`mrd`] does (extend and padding included); 0: no limit.
    public var maxResultDimension = 0

    /// Nothing to do.
    public init() {}

    /// Whether the transform leaves the image exactly as it came (no processors at all).
    public var isIdentity: Bool { self == DWTransform() }

    /// The quality for output `format`: ``quality``, else ``formatQuality``, else `fallback` (the engine's default).
    public func quality(for format: DWImageFormat, fallback: Int) -> Int {
        if let quality, quality > 0 { return quality }
        return formatQuality[format] ?? fallback
    }
}
