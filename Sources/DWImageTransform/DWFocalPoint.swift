// DWFocalPoint: a point of the source, in its pixels, that the fill crop centres on (thumbor's focal points).

/// A point of the upright source in pixels (not a fraction, as imgproxy's `fp` gravity): the fill crop is centred
/// on it and kept inside the image, in place of the gravity (thumbor's `focal()` filter, the centre of its
/// rectangle). A plain value.
public struct DWFocalPoint: Sendable, Hashable {
    public var x: Double, y: Double

    /// The point (`x`, `y`) of the source, in pixels.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
