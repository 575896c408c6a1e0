// DWPixelFilter: a colour filter imgproxy has no option for (thumbor's), run in order after imgproxy's filters.

/// One of thumbor's colour filters that imgproxy's options cannot express, as plain data: ``DWTransform``'s
/// ``DWTransform/pixelFilters`` runs them in order on 8-bit sRGB pixels, after imgproxy's filters (blur, sharpen,
/// pixelate, adjust, monochrome) and before extend and padding.
public enum DWPixelFilter: Sendable, Hashable {
    /// Grey by Rec. 601 luma, `0.299 R + 0.587 G + 0.114 B` on the gamma-encoded values (Pillow's `convert("L")`,
    /// thumbor's `grayscale()`); the alpha band is kept.
    case lumaGrayscale
    /// Adds the three amounts (−255…255) to the red, green and blue channels, clipped (thumbor's `rgb()`).
    case offset(red: Int, green: Int, blue: Int)

    /// Histogram equalisation of each colour channel on its own (thumbor's `equalize()`).
    case equalize
    /// Each colour channel mixed with `color`'s by its percentage 0…100 (thumbor's `colorize()`).
    case colorize(red: Int, green: Int, blue: Int, color: DWColor)
    /// Correlation with a matrix of `columns` columns (odd sides, row-major), already normalised if asked, edges
    /// extended by copying; alpha too (thumbor's `convolution()`).
    case convolution(matrix: [Double], columns: Int)
    /// thumbor's `fill()`: the image centred (thumbor's rounding: the odd pixel after it) on a canvas of the box
    /// (a side of 0, or smaller than the image: the image's; `adaptive`: the box's sides swapped when the image
    /// leans the other way), filled with `fill`.
    case letterbox(width: Int, height: Int, adaptive: Bool, fill: DWLetterboxFill)
    /// A turn of the finished image by 90, 180 or 270 degrees clockwise (thumbor's `rotate()`, which turns after
    /// the resize, where imgproxy's `rot` turns before it).
    case rotate(clockwise: Int)
    /// Corners cut by quarter ellipses of `horizontal` × `vertical` pixels (each at most half the side), painted
    /// `color`, and transparent too when `transparent` (thumbor's `round_corner()`); the edge anti-aliased.
    case roundCorners(horizontal: Int, vertical: Int, color: DWColor, transparent: Bool)
    /// thumbor's `sharpen()`: its wavelet sharpen (five levels; each level's detail scaled by
    /// `amount · e^(−(level − radius)²/1.5) + 1`), on the RGB channels or, with `luminanceOnly`, on the luma (YCbCr).
    case waveletSharpen(amount: Double, radius: Double, luminanceOnly: Bool)
    /// thumbor's `noise()`: one random offset in `[−amount/2, amount/2)` per pixel added to R, G and B, from glibc's
    /// `random()` seeded with `seed` (0: a fresh seed for each rendering, as thumbor's unseeded generator).
    case noise(amount: Int, seed: Int)
    /// thumbor's `curve()`: each channel through its cubic-spline curve, then through `all`'s. Each curve is its
    /// points `x0, y0, x1, y1, …` (0…255, the x strictly increasing).
    case curve(all: [Int], red: [Int], green: [Int], blue: [Int])
    /// thumbor's `watermark()`: the plan's watermark image drawn over the result (``DWThumborWatermark``).
    case watermark(DWThumborWatermark)

    /// The size of a `width` × `height` image after this filter: the letterbox's canvas, the turned sides; the
    /// same size for the others. Pure arithmetic (the result limits check it before anything is decoded).
    public func size(after size: (width: Int, height: Int)) -> (width: Int, height: Int) {
        switch self {
        case .letterbox(let width, let height, let adaptive, _):
            let (w, h) = size
            var box = (width, height)
            if adaptive, box.0 > 0, box.1 > 0, (w < h && box.0 > box.1) || (w > h && box.0 < box.1) {
                box = (box.1, box.0)
            }
            return (box.0 == 0 ? w : max(box.0, w), box.1 == 0 ? h : max(box.1, h))
        case .rotate(let degrees): return degrees % 180 == 0 ? size : (size.height, size.width)
        default: return size
        }
    }

    /// The identifier's form: `luma`, `rgb:R:G:B`, `equalize`, `colorize:R:G:B:RRGGBB`, `conv:COLUMNS:M;M;…`,
    /// `letterbox:W:H:ADAPTIVE:FILL`, `rot:DEGREES`, `corners:A:B:RRGGBB:T`, `wsharpen:AMOUNT:RADIUS:LUMA`,
    /// `noise:AMOUNT:SEED`, `curve:A:R:G:B` (each `x;y;x;y…`), `twm:…` (``DWThumborWatermark/identifier``).
    public var identifier: String {
        switch self {
        case .lumaGrayscale: "luma"
        case .offset(let red, let green, let blue): "rgb:\(red):\(green):\(blue)"
        case .equalize: "equalize"
        case .colorize(let r, let g, let b, let color): "colorize:\(r):\(g):\(b):\(color.hexDigits)"
        case .convolution(let matrix, let columns):
            "conv:\(columns):" + matrix.map(DWTransform.number).joined(separator: ";")
        case .letterbox(let width, let height, let adaptive, let fill):
            "letterbox:\(width):\(height):\(adaptive ? 1 : 0):\(fill.identifier)"
        case .rotate(let degrees): "rot:\(degrees)"
        case .roundCorners(let a, let b, let color, let transparent):
            "corners:\(a):\(b):\(color.hexDigits):\(transparent ? 1 : 0)"
        case .waveletSharpen(let amount, let radius, let luminanceOnly):
            "wsharpen:\(DWTransform.number(amount)):\(DWTransform.number(radius)):\(luminanceOnly ? 1 : 0)"
        case .noise(let amount, let seed): "noise:\(amount):\(seed)"
        case .curve(let all, let red, let green, let blue):
            "curve:" + [all, red, green, blue].map { $0.map(String.init).joined(separator: ";") }.joined(separator: ":")
        case .watermark(let watermark): watermark.identifier
        }
    }
}

/// What fills a ``DWPixelFilter/letterbox(width:height:adaptive:fill:)`` canvas around the image.
public enum DWLetterboxFill: Sendable, Hashable {
    /// A colour; nil: transparent.
    case color(DWColor?)
    /// The image's mean colour, each channel's mean rounded down (thumbor's `fill(auto)`).
    case mean
    /// The image blurred (thumbor's Gaussian: sigma 50, cut at 50 pixels) and stretched to the canvas
    /// (thumbor's `fill(blur)`).
    case blur

    /// `rrggbb`, `none`, `auto`, `blur`.
    public var identifier: String {
        switch self {
        case .color(let color): color?.hexDigits ?? "none"
        case .mean: "auto"
        case .blur: "blur"
        }
    }
}
