// The size a transform's result will have for an SVG source: imgproxy's rules for a vector.
import DWWebImage

extension DWTransform {
    /// The result's width and height for an SVG of intrinsic size `sourceWidth` × `sourceHeight` (upright), as
    /// imgproxy computes them for a vector: scaled to the box without `enlarge`, and, not enlarging, scaled down so
    /// that what it renders stays within `maxPixels`; then crop, extend and padding as
    /// ``resultSize(sourceWidth:sourceHeight:)``. Pure arithmetic; call on any thread.
    public func vectorResultSize(sourceWidth: Int, sourceHeight: Int, maxPixels: Int) -> (width: Int, height: Int) {
        let width = max(1, sourceWidth), height = max(1, sourceHeight)
        let vector = ImgproxyGeometry.Vector(maxPixels: maxPixels)
        return ImgproxyGeometry(width: width, height: height, transform: self, vector: vector).outputSize(self)
    }
}
