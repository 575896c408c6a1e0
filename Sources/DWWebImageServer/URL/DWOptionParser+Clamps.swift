// The one table of filter strengths the server serves at most: a URL asking for more gets the clamp (and the
// clamp's cache key), so no filter can cost more than its clamp and near-identical values share one variant.
import DWImageTransform
import DWWebImage

/// The most each filter may ask for. Values above are served as the clamp, never refused (imgproxy accepts them);
/// sigmas are rounded to 0.01. Applied by the option parser (``DWOptionParser``) as it reads each option, so a
/// clamped URL and its clamp parse to equal options; ``DWResultLimits/clamped(_:)`` applies the same table to
/// options built in code.
enum DWFilterClamps {
    /// `bl:` Gaussian blur sigma (cost grows with the sigma).
    static let blurSigma = 50.0
    /// `sh:` sharpen sigma (libvips' sharpen costs about linearly in sigma: σ 200 ≈ 4.3 s per megapixel).
    static let sharpenSigma = 50.0
    /// `pix:` pixelate block size, pixels.
    static let pixelateSize = 256

    /// A sigma within `0...limit`, rounded to 0.01 (non-finite values are left to the option's own check).
    static func sigma(_ value: Double, limit: Double) -> Double {
        guard value.isFinite, value > 0 else { return value }
        return (min(value, limit) * 100).rounded() / 100
    }

    /// `options`' filters within the table.
    static func clamp(_ options: DWTransform) -> DWTransform {
        var options = options
        options.blur = sigma(options.blur, limit: blurSigma)
        options.sharpen = sigma(options.sharpen, limit: sharpenSigma)
        options.pixelate = min(options.pixelate, pixelateSize)
        return options
    }
}
