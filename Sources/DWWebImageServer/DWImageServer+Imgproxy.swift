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

    /// A `local:///path` source read under `--local-root`: 404 without a root, for a path that escapes it (`..`, a
    /// symlink out, an absolute path elsewhere) or a missing file. Runs on the request's task.
    func localImage(_ source: String, chain: [any DWImageProcessor]) throws(DWWebImageError) -> DWImage {
        guard let root = configuration.imgproxy.localRoot else {
            throw DWWebImageError(.httpStatus, "local:// sources are not enabled", httpStatus: 404)
        }
        guard let file = Self.localFile(source, root: root) else {
            throw DWWebImageError(.httpStatus, "local file is outside --local-root or missing", httpStatus: 404)
        }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw DWWebImageError(.httpStatus, "local file cannot be read", httpStatus: 404)
        }
        let image = try DWImage(data: data, maxPixelCount: configuration.maxPixels)
        return try DWImageProcessors.apply(chain, to: image)
    }

    /// The file a `local:///path` names, resolved (symlinks followed), if it lies inside `root`; nil otherwise.
    static func localFile(_ source: String, root: URL) -> URL? {
        let path = String(source.dropFirst("local://".count))
        guard path.hasPrefix("/"), let decoded = path.removingPercentEncoding,
              !decoded.split(separator: "/").contains("..") else { return nil }
        let resolved = root.appendingPathComponent(String(decoded.dropFirst())).resolvingSymlinksInPath()
        let rootPath = root.resolvingSymlinksInPath().path
        guard resolved.path.hasPrefix(rootPath + "/") else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return nil
        }
        return resolved
    }

    /// The fallback image through `chain`, when one is configured and processes; nil otherwise.
    func fallbackImage(chain: [any DWImageProcessor]) -> DWImage? {
        guard let fallback = configuration.imgproxy.fallbackImage else { return nil }
        return try? DWImageProcessors.apply(chain, to: fallback)
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
