// DWThumborWatermark: where and how thumbor's `watermark()` filter draws its image (thumbor's filters/watermark.py).

/// thumbor's `watermark(url, x, y, alpha[, w_ratio[, h_ratio]])` as plain data; the image itself is the plan's
/// (``DWPixelFilter/watermark(_:)``). A plain value; its arithmetic is pure and runs on any thread.
public struct DWThumborWatermark: Sendable, Hashable {
    /// One coordinate as thumbor reads it.
    public enum Position: Sendable, Hashable {
        /// `N` pixels from the left/top edge, or with `fromEnd` (`-N`) from the right/bottom (the watermark's far
        /// edge that many pixels before the image's; `-0` touches it).
        case pixels(Int, fromEnd: Bool)
        /// `Np` (`-Np`): N percent of the image's side, rounded, then as ``pixels(_:fromEnd:)``.
        case percent(Int, fromEnd: Bool)
        /// `center`: centred, rounded towards zero.
        case center
        /// `repeat`: tiled along this axis with thumbor's spacing.
        case tiled

        /// `N`, `-N`, `Np`, `-Np`, `center`, `repeat`.
        public var identifier: String {
            switch self {
            case .pixels(let n, let fromEnd): (fromEnd ? "-" : "") + String(n)
            case .percent(let n, let fromEnd): (fromEnd ? "-" : "") + String(n) + "p"
            case .center: "center"
            case .tiled: "repeat"
            }
        }

        /// This position in pixels on a side of `length` (thumbor's `detect_and_get_ratio_position`:
        /// `round(length · N / 100 + 1e-5)`); nil for `center` and `repeat`.
        func pixels(on length: Int) -> (Int, fromEnd: Bool)? {
            switch self {
            case .pixels(let n, let fromEnd): (n, fromEnd)
            case .percent(let n, let fromEnd):
                (Int((Double(length) * Double(n) / 100 + 1e-5).rounded(.toNearestOrEven)), fromEnd)
            case .center, .tiled: nil
            }
        }
    }

    /// The watermark image's URL as fetched (the identity of its bytes is the plan's, ``DWPixelFilter/watermark(_:)``).
    public var url: String
    /// Where along the result's width.
    public var x: Position
    /// Where along the result's height.
    public var y: Position
    /// 0…100: the percentage of 255 taken off the watermark's alpha (thumbor's transparency; 100 and above: none left).
    public var alpha: Int
    /// Percent of the result's width the watermark is fitted into (nil: `none`, 0 or absent).
    public var widthRatio: Int?
    /// Percent of the result's height the watermark is fitted into (nil: `none`, 0 or absent).
    public var heightRatio: Int?

    /// A watermark from its parts.
    public init(url: String, x: Position, y: Position, alpha: Int, widthRatio: Int? = nil, heightRatio: Int? = nil) {
        (self.url, self.x, self.y, self.alpha) = (url, x, y, alpha)
        (self.widthRatio, self.heightRatio) = (widthRatio, heightRatio)
    }

    /// `twm:X:Y:ALPHA:WR:HR:URL` (`none` for a missing ratio; the URL last, as it may hold ":").
    public var identifier: String {
        "twm:\(x.identifier):\(y.identifier):\(alpha):\(widthRatio.map(String.init) ?? "none"):"
            + "\(heightRatio.map(String.init) ?? "none"):\(url)"
    }

    /// The watermark's size on an `image`-sized result (thumbor's `calc_watermark_size`, Python's rounding of
    /// halves to even), from its own `mark` size; `mark` itself without ratios. Each side at least 1.
    public func size(image: (width: Int, height: Int), mark: (width: Int, height: Int)) -> (width: Int, height: Int) {
        guard widthRatio != nil || heightRatio != nil, mark.width > 0, mark.height > 0 else { return mark }
        let (mw, mh) = (Double(mark.width), Double(mark.height))
        var maxWidth = widthRatio.map { Double(image.width) * Double($0) / 100 } ?? 0
        var maxHeight = heightRatio.map { Double(image.height) * Double($0) / 100 } ?? 0
        if maxWidth == 0 { maxWidth = mw * maxHeight / mh }
        if maxHeight == 0 { maxHeight = mh * maxWidth / mw }
        guard maxWidth > 0, maxHeight > 0 else { return mark }
        let width: Double, height: Double
        if mw / maxWidth >= mh / maxHeight {
            (width, height) = (maxWidth, mh * maxWidth / mw)
        } else {
            (width, height) = (mw * maxHeight / mh, maxHeight)
        }
        let cap = 1_000_000.0  // beyond any result (the result limits hold the image far below it)
        return (
            max(1, Int(min(width, cap).rounded(.toNearestOrEven))),
            max(1, Int(min(height, cap).rounded(.toNearestOrEven)))
        )
    }

    /// Where the watermark is drawn on an `image`-sized result, the watermark `mark`-sized (thumbor's
    /// `on_image_ready`): along each axis `count` copies, the first at `start`, each next `step` further (one copy
    /// unless `repeat`: then a row, a column or a grid with thumbor's spacing, at most 6 × 6 beyond 100 copies).
    public func layout(image: (width: Int, height: Int), mark: (width: Int, height: Int))
        -> (x: Axis, y: Axis)
    {
        var across = axis(x, image: image.width, mark: mark.width)
        var down = axis(y, image: image.height, mark: mark.height)
        if case .tiled = x, case .tiled = y, across.count * down.count > 100 {
            let (cx, cy) = (min(6, across.count), min(6, down.count))
            across = Self.tiles(cx, space: image.width - cx * mark.width, mark: mark.width)
            down = Self.tiles(cy, space: image.height - cy * mark.height, mark: mark.height)
        }
        return (across, down)
    }

    /// Copies along one axis: `count` of them from `start`, `step` apart.
    public struct Axis: Sendable, Equatable {
        /// The first copy's offset (negative: partly outside the result).
        public var start: Int
        /// How many copies.
        public var count: Int
        /// The distance from one copy's start to the next's (0 for a single copy).
        public var step: Int
    }

    /// The copies along one axis.
    private func axis(_ position: Position, image: Int, mark: Int) -> Axis {
        switch position {
        case .center: return Axis(start: Int((Double(image - mark) / 2).rounded(.towardZero)), count: 1, step: 0)
        case .tiled:
            guard mark > 0 else { return Axis(start: 0, count: 1, step: 0) }
            if Double(image) / Double(mark) < 2 {
                return Self.tiles((image + mark - 1) / mark, space: 10, mark: mark)
            }
            return Self.tiles(image / mark, space: image % mark, mark: mark)
        case .pixels, .percent:
            guard let (n, fromEnd) = position.pixels(on: image) else { return Axis(start: 0, count: 1, step: 0) }
            return Axis(start: fromEnd ? image - mark - n : n, count: 1, step: 0)
        }
    }

    /// `count` tiles with `space` spread between them (Python's floor division, as thumbor's).
    private static func tiles(_ count: Int, space: Int, mark: Int) -> Axis {
        let gaps = max(count, 2) - 1
        let gap = Int((Double(space) / Double(gaps)).rounded(.down))
        return Axis(start: 0, count: max(count, 0), step: gap + mark)
    }
}

extension DWTransform {
    /// Whether a watermark image is drawn: imgproxy's ``watermark`` or a thumbor ``DWPixelFilter/watermark(_:)``.
    public var drawsWatermark: Bool {
        watermark != nil || pixelFilters.contains { if case .watermark = $0 { true } else { false } }
    }
}
