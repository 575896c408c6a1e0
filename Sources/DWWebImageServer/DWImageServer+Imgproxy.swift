// The imgproxy-compatibility parts of answering an image request: the transform's chain, local files, the fallback
// image and Content-Disposition.
import DWWebImage
import DWWebImageProcessing
import Foundation
import HTTPTypes

extension DWImageServer {
    /// The chain for `url` (empty for `raw:1`): the URL's transform with the negotiated format and the server's
    /// per-format qualities, through the one builder the CLI and the library use.
    func chain(for url: DWProxyURL, format: DWImageFormat?) -> [any DWImageProcessor] {
        guard !url.options.raw else { return [] }
        var transform = url.options.transform
        transform.format = format
        for (format, quality) in configuration.imgproxy.formatQuality where transform.formatQuality[format] == nil {
            transform.formatQuality[format] = quality
        }
        let chain = transform.processors(watermark: configuration.imgproxy.watermark)
        // `skp:` compares the source with the format the URL names (imgproxy's `po.Format`), not with the one the
        // preferred formats or `Accept` chose for it: a URL naming none skips every listed source format.
        if chain.count == 1, let skip = chain[0] as? DWSkipProcessing, skip.named != url.options.transform.format {
            return [DWSkipProcessing(formats: skip.formats, chain: skip.chain, named: url.options.transform.format)]
        }
        return chain
    }

    /// A `local:///path` source read whole on the caller's thread, for `/info` (image requests load local files
    /// through the pipeline: ``DWLocalFileLoader``): opened as the loader opens it (no symlink, nothing outside
    /// `--local-root`, 404 otherwise), at most `--max-size` bytes (422 beyond, from the file's size), then `chain`.
    func localImage(_ source: String, chain: [any DWImageProcessor]) throws(DWWebImageError) -> DWImage {
        let loader = DWLocalFileLoader(root: configuration.imgproxy.localRoot)
        let data = try loader.readWhole(source, maxBytes: configuration.maxSize)
        let image = try DWImage(data: data, maxPixelCount: configuration.maxPixels)
        return try DWImageProcessors.apply(chain, to: image)
    }

    /// The fallback image through `chain`, when one is configured and processes; nil otherwise. Made by the pipeline
    /// (``DWFallbackLoader``) on its processing queue and kept in its memory cache per chain identifier, so failing
    /// requests with a chain seen before cost no transform. Awaited on the request's task.
    func fallbackImage(chain: [any DWImageProcessor]) async -> DWImage? {
        guard let fallbackSource else { return nil }
        var options = Self.options(for: chain)
        options.insert(.cacheMemoryOnly)  // made from a file given at start-up: never worth a disk entry
        return try? await manager.image(withURL: fallbackSource, options: options)
    }

    /// `inline` or `attachment` with a file name made safe: `fn:` or the source's last path component (without
    /// its extension), then the output's extension; quotes, controls and path separators never reach the header.
    static func contentDisposition(_ options: DWImgproxyOptions, source: String, format: DWImageFormat) -> String {
        let last = URL(string: source)?.deletingPathExtension().lastPathComponent ?? ""
        let base = options.filename ?? (last.isEmpty || last == "/" ? "image" : last)
        let name = base + "." + format.fileExtension
        let ascii = String(name.unicodeScalars.map { scalar -> Character in
            let c = Character(scalar)
            return scalar.isASCII && (c.isLetter || c.isNumber || "._- ()+,".contains(c)) ? c : "_"
        })
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: ".-_")))
            ?? ascii
        return "\(options.returnAttachment ? "attachment" : "inline"); filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }
}
