// DWGravity: where a crop, an extension or a watermark sits (imgproxy's gravity types and offsets).
import DWWebImage

/// A gravity: a side or corner with offsets, the centre, libvips' attention (`sm`), a focus point (`fp`), or
/// tiling (`re`, watermarks only).
public struct DWGravity: Sendable, Hashable, CustomStringConvertible {
    /// imgproxy's gravity types, by their URL names.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case north = "no", south = "so", east = "ea", west = "we"
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
        case center = "ce"
        /// libvips' attention strategy (`vips_smartcrop`).
        case smart = "sm"
        /// A focus point: ``x`` and ``y`` are 0…1 of the width and height.
        case focusPoint = "fp"
        /// Watermarks only: the watermark tiled over the whole image.
        case replicate = "re"
    }

    /// The type.
    public var kind: Kind
    /// Offset from the edge (pixels when |x| ≥ 1, else a fraction of the width); the point's x for ``Kind/focusPoint``.
    public var x: Double
    /// Offset from the edge (pixels when |y| ≥ 1, else a fraction of the height); the point's y for
    /// ``Kind/focusPoint``.
    public var y: Double

    /// A gravity of `kind` with offsets.
    public init(_ kind: Kind, x: Double = 0, y: Double = 0) {
        self.kind = kind
        self.x = x
        self.y = y
    }

    /// The centre, no offsets (imgproxy's default).
    public static let center = DWGravity(.center)

    /// `ce`, `no:10:5`, `fp:0.5:0.25`: the URL form, offsets only when not zero.
    public var description: String {
        x == 0 && y == 0 && kind != .focusPoint
            ? kind.rawValue : "\(kind.rawValue):\(DWTransform.number(x)):\(DWTransform.number(y))"
    }
}
