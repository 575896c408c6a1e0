// The size a transform's result will have, from the source's size alone (before anything is decoded).
import DWWebImage

extension DWTransform {
    /// The result's width and height for an upright `sourceWidth` × `sourceHeight` source, as imgproxy's prepare.go
    /// computes them: crop, scale (box, zoom, DPR, min sizes, enlarge, ``maxResultDimension``), the fill crop, extend
    /// or extend aspect ratio, padding, then the ``pixelFilters`` that change the size (thumbor's fill canvas and
    /// turns). A trim can only make it smaller. dwfetch's extras and the encoding do not change it. Pure arithmetic
    /// with sizes held within ±Int32.max (no URL can make it trap); call on any thread.
    public func resultSize(sourceWidth: Int, sourceHeight: Int) -> (width: Int, height: Int) {
        let geometry = ImgproxyGeometry(width: max(1, sourceWidth), height: max(1, sourceHeight), transform: self)
        return pixelFilters.reduce(geometry.outputSize(self)) { $1.size(after: $0) }
    }
}
