// The small values a DWTransform is made of: colours, extension, trim, padding, monochrome, watermark placement.
import DWWebImage

/// An opaque sRGB colour, 8 bits a channel (URL options, placeholders, /info).
public struct DWColor: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8, green: UInt8, blue: UInt8

    /// A colour from its three 0…255 components.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `RRGGBB` or `RGB` hex (either case, no `#`); nil otherwise.
    public init?(hex: some StringProtocol) {
        var digits = Array(hex)
        if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(String(digits), radix: 16) else {
            return nil
        }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// `rrggbb`, lower-case hex without `#` (imgproxy's URL form).
    public var hexDigits: String {
        [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// `"#rrggbb"`, lower case (CSS; /info's dominant colours).
    public var hex: String { "#" + hexDigits }

    /// ``hex``.
    public var description: String { hex }
}

/// Extend (`ex`) or extend-aspect-ratio (`exar`): grow the canvas to the box, the image placed at `gravity`.
public struct DWExtend: Sendable, Hashable {
    /// Where the image sits on the larger canvas (no `sm`).
    public var gravity: DWGravity
    /// Extend with the image at `gravity` (default: the centre).
    public init(gravity: DWGravity = .center) { self.gravity = gravity }
}

/// Trim (`t`): cut a border of one colour off before anything else.
public struct DWTrim: Sendable, Hashable {
    /// How far a pixel may be from the border colour and still be border.
    public var threshold: Double
    /// The border colour; nil: the top-left pixel's.
    public var color: DWColor?
    /// Cut as much from the left as from the right (the smaller of the two).
    public var equalHorizontal: Bool
    /// Cut as much from the top as from the bottom (the smaller of the two).
    public var equalVertical: Bool
    /// thumbor's rule instead of imgproxy's: the border is every pixel within `threshold` (Euclidean distance over
    /// the 8-bit RGB or RGBA bytes) of this corner's pixel, found by thumbor's own scan; nil: imgproxy's
    /// (`vips_find_trim`). `color` and the equal sides do not apply to it.
    public var thumborCorner: ThumborCorner?

    /// The corner whose pixel is the border's colour in thumbor's trim (`trim:top-left`, `trim:bottom-right`).
    public enum ThumborCorner: String, Sendable, Hashable {
        case topLeft = "tl", bottomRight = "br"
    }

    /// A trim; imgproxy's defaults (threshold 10, colour of the top-left pixel).
    public init(
        threshold: Double = 10, color: DWColor? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false
    ) {
        self.threshold = threshold
        self.color = color
        self.equalHorizontal = equalHorizontal
        self.equalVertical = equalVertical
    }

    /// thumbor's trim: the border within `tolerance` of `corner`'s pixel.
    public init(thumbor corner: ThumborCorner, tolerance: Double) {
        self.init(threshold: tolerance)
        thumborCorner = corner
    }
}

/// Padding (`pd`) in CSS order, in pixels before the DPR.
public struct DWPadding: Sendable, Hashable {
    public var top = 0, right = 0, bottom = 0, left = 0
    /// Padding on each side.
    public init(top: Int = 0, right: Int = 0, bottom: Int = 0, left: Int = 0) {
        self.top = top
        self.right = right
        self.bottom = bottom
        self.left = left
    }
    /// Whether any side is padded.
    public var isEmpty: Bool { top == 0 && right == 0 && bottom == 0 && left == 0 }
}

/// Monochrome (`mc`, imgproxy Pro's form): luminance, tinted with `color` at `intensity`.
public struct DWMonochrome: Sendable, Hashable {
    /// 0…1: how much of the monochrome image replaces the original.
    public var intensity: Double
    /// The colour white maps to (imgproxy's default b3b3b3 is neutral grey).
    public var color: DWColor
    /// A monochrome step (defaults as imgproxy Pro's).
    public init(intensity: Double = 1, color: DWColor = DWColor(red: 0xB3, green: 0xB3, blue: 0xB3)) {
        self.intensity = intensity
        self.color = color
    }
}

/// Where and how the configured watermark image (`--watermark FILE`) is drawn (`wm`).
public struct DWWatermarkPlacement: Sendable, Hashable {
    /// 0…1 multiplies the watermark's alpha.
    public var opacity: Double
    /// Position and offsets (`re` tiles it).
    public var position: DWGravity
    /// Watermark width relative to the result's width; 0: its own size.
    public var scale: Double
    /// A placement (imgproxy's defaults: centre, own size).
    public init(opacity: Double, position: DWGravity = .center, scale: Double = 0) {
        self.opacity = opacity
        self.position = position
        self.scale = scale
    }
}
