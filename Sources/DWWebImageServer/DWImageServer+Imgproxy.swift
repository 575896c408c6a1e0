// The imgproxy-compatibility parts of answering an image request: local files, the fallback
// image and Content-Disposition.
import DWWebImage
import DWWebImageProcessing
import Foundation
import HTTPTypes

extension DWImageServer {
    /// A `local:///path` source read whole on the caller's thread, for `/info` (image requests load local files
    /// through the pipeline: ``DWLocalFileLoader``): opened as the loader opens it (no symlink, nothing outside
    /// `--local-root`, 404 otherwise), at most `--max-size` bytes (422 beyond, from the file's size).
    func localImage(_ source: String) throws(DWWebImageError) -> DWImage {
        let loader = DWLocalFileLoader(root: configuration.imgproxy.localRoot)
        let data = try loader.readWhole(source, maxBytes: configuration.maxSize)
        return try DWImage(data: data, maxPixelCount: configuration.maxPixels)
    }

    /// The fallback image rendered by `plan`, when one is configured and renders; nil otherwise. Made by the
    /// pipeline (``DWFallbackLoader``) on its transform workers and kept in its memory cache per plan identifier, so
    /// failing requests with a plan seen before cost no render. Awaited on the request's task.
    func fallbackImage(plan: DWVariantPlan?) async -> DWImage? {
        guard let fallbackSource else { return nil }
        var options = Self.options(for: plan)
        options.insert(.cacheMemoryOnly)  // made from a file given at start-up: never worth a disk entry
        return try? await manager.image(withURL: fallbackSource, options: options)
    }

    /// `inline` or `attachment` with a file name made safe: `fn:` or the source's last path component (without
    /// its extension), then the output's extension; quotes, controls and path separators never reach the header.
    static func contentDisposition(_ options: DWImgproxyOptions, source: String, format: DWImageFormat) -> String {
        let last = URL(string: source)?.deletingPathExtension().lastPathComponent ?? ""
        let base = options.filename ?? (last.isEmpty || last == "/" ? "image" : last)
        let name = base + "." + format.fileExtension
        let ascii = String(
            name.unicodeScalars.map { scalar -> Character in
                let c = Character(scalar)
                return scalar.isASCII && (c.isLetter || c.isNumber || "._- ()+,".contains(c)) ? c : "_"
            })
        let encoded =
            name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: ".-_")))
            ?? ascii
        return
            "\(options.returnAttachment ? "attachment" : "inline"); filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }
}
