// DWResize: thumbnails — fit, fill (cover + centre crop) or force, shrinking on load from the encoded bytes; fill-down
// and auto through imgproxy's arithmetic.
internal import CVips
import DWWebImage
import Foundation

/// Resizes to `width` × `height` (either may be nil: that side follows the aspect ratio).
///
/// On an image nobody has decoded yet this is `vips_thumbnail_buffer`: JPEG and WebP decode at a reduced scale
/// (a 12 MP JPEG fitted into 512 × 512 never becomes a 36 MB bitmap) and HEIF uses its embedded thumbnail when it
/// is big enough; EXIF orientation is applied and the pixels converted to sRGB. Animated GIFs are resized frame by
/// frame and keep their frames, delays and loop count. Never enlarges unless `enlarge` is true: with `.fill`, a side
/// of the image shorter than the box's is kept and the other cropped to the box (64×48 filled into 100×20 gives
/// 64×20), so "exactly the box" holds for images at least as large as the box; with `.force`, each side is at most
/// the image's. An SVG is a vector: it is rendered at the size asked for (imgproxy's rule: no `enlarge` needed).
/// The output keeps the source's format (BMP and ICO become PNG, SVG too) unless a ``DWConvert`` follows; lossy
/// formats use quality 80.
///
/// `process(_:)` runs on the caller's thread; instances are plain values, safe to share.
public struct DWResize: DWImageProcessor, Hashable {
    /// Target width in pixels, or nil to follow the height and the aspect ratio.
    public let width: Int?
    /// Target height in pixels, or nil to follow the width and the aspect ratio.
    public let height: Int?
    /// How the image maps onto the box.
    public let mode: DWResizeMode
    /// Whether an image smaller than the box may be scaled up.
    public let enlarge: Bool

    /// A resize to `width` × `height`.
    ///
    /// - Precondition: at least one side is given, and each side given is 1…10,000,000 (libvips' largest
    ///   coordinate); `process(_:)` then fails only for the image.
    public init(width: Int?, height: Int?, mode: DWResizeMode = .fit, enlarge: Bool = false) {
        precondition(width != nil || height != nil, "DWResize needs a width or a height")
        precondition(
            (1...Self.unbounded).contains(width ?? 1) && (1...Self.unbounded).contains(height ?? 1),
            "DWResize needs sides of 1…\(Self.unbounded) pixels (got \(Self.side(width))x\(Self.side(height)))")
        self.width = width
        self.height = height
        self.mode = mode
        self.enlarge = enlarge
    }

    /// `resize(<w>x<h>,<mode>[,enlarge])`, a missing side left empty: `resize(200x,fit)`.
    public var identifier: String {
        "resize(\(width.map(String.init) ?? "")x\(height.map(String.init) ?? ""),"
            + "\(mode.rawValue)\(enlarge ? ",enlarge" : ""))"
    }

    /// The resized image. 10000 for bytes that do not decode; 10005 over the limits
    /// (``DWImageProcessing/limits``), checked before decoding.
    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        try Engine.process(image) { canvas throws(DWWebImageError) in try apply(to: &canvas) }
    }

    private static func side(_ value: Int?) -> String { value.map(String.init) ?? "nil" }

    /// libvips' largest coordinate: "no limit on this side".
    static let unbounded = 10_000_000

    func apply(to canvas: inout Canvas) throws(DWWebImageError) {
        // fill-down and auto need imgproxy's arithmetic on the upright size; an SVG is scaled as a vector, as imgproxy
        // does (rendered at the size asked for, larger than its intrinsic size too)
        if mode == .fillDown || mode == .auto || canvas.source?.format == .svg {
            var transform = DWTransform()
            (transform.resizingType, transform.width, transform.height, transform.enlarge) = (
                mode, width ?? 0, height ?? 0, enlarge
            )
            return try ImgproxyStage(transform: transform, watermark: nil).apply(to: &canvas)
        }
        var boxWidth = width ?? Self.unbounded
        var boxHeight = height ?? Self.unbounded
        let fill = mode == .fill && width != nil && height != nil
        var size = enlarge ? VipsSize.both : VipsSize.down
        if mode == .force && width != nil && height != nil {
            size = VipsSize.force
            if !enlarge {
                let (sourceWidth, sourceHeight) = try uprightSize(of: canvas)
                boxWidth = min(boxWidth, sourceWidth)
                boxHeight = min(boxHeight, sourceHeight)
            }
        }
        let crop = fill ? VipsInteresting.centre : VipsInteresting.none
        if let source = canvas.source, Decoder.vipsLoader(for: source.format) != nil, !Decoder.isAnimatedWebP(source),
            !(source.format == .png && source.isAnimated)
        {  // animations resize frame by frame below
            let decoded = try Decoder.thumbnail(source, width: boxWidth, height: boxHeight, size: size, crop: crop)
            canvas.frames = decoded.frames
            canvas.keepAlive.append(contentsOf: decoded.keepAlive)
            canvas.source = nil
            return
        }
        try canvas.mapFrames { frame throws(DWWebImageError) in
            try Vips.make("cannot resize") {
                cvips_thumbnail_image(frame.pointer, Int32(boxWidth), Int32(boxHeight), size, crop, $0)
            }
        }
    }

    /// The canvas's size after EXIF orientation, from the header when it is not decoded yet.
    private func uprightSize(of canvas: Canvas) throws(DWWebImageError) -> (Int, Int) {
        guard let source = canvas.source else { return (canvas.width, canvas.height) }
        guard Decoder.vipsLoader(for: source.format) != nil else { return (source.pixelWidth, source.pixelHeight) }
        let header = try Decoder.open(source.data, format: source.format)
        let swapped = (5...8).contains(header.int("orientation") ?? 1)
        return swapped ? (header.height, header.width) : (header.width, header.height)
    }
}
