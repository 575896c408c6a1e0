// DWEncode, DWCacheBuster, DWSkipProcessing: the encoding and handling steps a DWTransform adds to its chain.
import DWWebImage
import Foundation

/// Encodes as `format` (nil: the format the image has, PNG for one the engine does not write) at the quality
/// ``DWTransform/quality(for:fallback:)`` picks; with `maxBytes` > 0, re-encodes at lower qualities (as imgproxy
/// does) until the result fits or the quality reaches 10. `process(_:)` runs on the caller's thread.
public struct DWEncode: DWImageProcessor {
    public let format: DWImageFormat?
    public let quality: Int?
    public let formatQuality: [DWImageFormat: Int]
    public let maxBytes: Int

    /// An encoding step (see the type's doc).
    public init(format: DWImageFormat?, quality: Int?, formatQuality: [DWImageFormat: Int], maxBytes: Int) {
        self.format = format
        self.quality = quality
        self.formatQuality = formatQuality
        self.maxBytes = maxBytes
    }

    /// `encode(<format|source>,q<q|->,fq<fmt=q;…>,mb<n>)`.
    public var identifier: String {
        let fq = formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }
        return "encode(\(format?.rawValue ?? "source"),q\(quality.map(String.init) ?? "-"),fq\(fq.joined(separator: ";")),mb\(maxBytes))"
    }

    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        var transform = DWTransform()
        (transform.quality, transform.formatQuality) = (quality, formatQuality)
        let target = format ?? Encoder.defaultOutputFormat(for: image)
        var q = transform.quality(for: target, fallback: DWImageProcessing.defaultQuality(for: target))
        while true {
            let output = try Engine.process(image) { canvas throws(DWWebImageError) in
                if let format { canvas.outputFormat = format }
                canvas.quality = q
            }
            guard maxBytes > 0, output.data.count > maxBytes, q > 10, DWImageProcessing.isLossy(target) else { return output }
            // imgproxy's steps: far over → quarter or half the quality, near → a tenth less.
            let over = Double(output.data.count) / Double(maxBytes)
            q = max(10, over > 3 ? q / 4 : over > 1.5 ? q / 2 : q * 9 / 10)
        }
    }
}

/// Changes the cache key (`cb:` / `cachebuster:`) and nothing else: returns its input.
public struct DWCacheBuster: DWImageProcessor {
    public let value: String
    /// A cache buster of `value`.
    public init(value: String) { self.value = value }
    /// `cb(<value>)` (a "|" is escaped: it separates identifiers).
    public var identifier: String { "cb(\(value.replacingOccurrences(of: "|", with: "%7C")))" }
    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage { image }
}

/// Serves sources of `formats` unprocessed (`skp:`) when the request names no output format or names the source's
/// own (imgproxy's rule: `skp:jpg` with `f:png` still converts a JPEG); others go through `chain`.
public struct DWSkipProcessing: DWImageProcessor {
    public let formats: Set<DWImageFormat>
    public let chain: [any DWImageProcessor]
    /// The output format the request names, nil for none.
    public let named: DWImageFormat?
    /// A chain that sources of `formats` skip unless `named` is another format.
    public init(formats: Set<DWImageFormat>, chain: [any DWImageProcessor], named: DWImageFormat? = nil) {
        self.formats = formats
        self.chain = chain
        self.named = named
    }
    /// `skp(<formats>;<the chain's identifiers joined by ";">)` (a named format is in the chain's own identifiers).
    public var identifier: String {
        "skp(\(formats.map(\.rawValue).sorted().joined(separator: ","));\(chain.map(\.identifier).joined(separator: ";")))"
    }
    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        let skips = formats.contains(image.format) && (named == nil || named == image.format)
        return skips ? image : try DWImageProcessors.apply(chain, to: image)
    }
}
