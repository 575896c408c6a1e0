// /info: imgproxy Pro's info endpoint — the source's facts as JSON, signed like processing URLs.
import DWWebImage
import DWWebImageProcessing
import Foundation
import Hummingbird
import HTTPTypes

extension DWImageServer {
    /// `GET /info/{signature}/{options}/{source}`: the signature covers the part after it (as for images); options
    /// are ``DWInfoOptions``; the answer is cached as a variant is (``infoAnswer(for:options:)``), its source fetched
    /// through the pipeline (cached, coalesced, address-checked) or read under `--local-root`. Answered on the
    /// request's task.
    func infoResponse(for request: Request, target: String) async -> Response {
        let url: DWProxyURL
        let options: DWInfoOptions
        do {
            let inner = String(target.dropFirst("/info".count))
            let (signature, signedPath) = try DWProxyURL.split(target: inner)
            if !configuration.signers.isEmpty,
               !configuration.signers.contains(where: { $0.isValid(signature: signature, for: signedPath) }) {
                return refuse(.forbidden, "invalid signature", note: " bad-signature")
            }
            (options, url) = try Self.infoRequest(signature: signature, signedPath: signedPath)
        } catch {
            return refuse(.init(code: error.status), error.description, note: " bad-url")
        }
        guard !Self.hasUserinfo(url.source) else {  // the same source rules as image requests
            return refuse(.badRequest, "source URL must not contain credentials", note: " userinfo")
        }
        guard url.source.hasPrefix("local://") || hostIsAllowed(url.sourceHost) else {
            return refuse(.forbidden, "source host is not allowed", note: " host-refused")
        }
        if !configuration.allowS3, DWS3Location(url.source) != nil {
            return refuse(.forbidden, "s3:// sources are not enabled (--allow-s3)", note: " s3-refused")
        }
        do {
            let (body, note) = try await infoAnswer(for: url, options: options)
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.contentLength] = String(body.count)
            headers[.cacheControl] = "public, max-age=\(configuration.maxAge)"
            headers[.eTag] = DWETag.of(body)
            DWResponses.addSecurityHeaders(&headers)
            DWAccessNote.current?.text = note
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        } catch {
            let (status, message) = DWStatusMapping.status(for: error)
            return refuse(status, message, note: " error \(error.code.rawValue)")
        }
    }

    /// An `/info` request's options and source, from the path after its signature: the info options come off the
    /// front, and what is left is a processing URL with no options. Any thread.
    static func infoRequest(signature: String, signedPath: String) throws(DWProxyURL.ParseError)
        -> (options: DWInfoOptions, url: DWProxyURL) {
        var options = DWInfoOptions()
        var rest = signedPath.dropFirst()[...]
        while let slash = rest.firstIndex(of: "/"), rest[..<slash].contains(":"), rest[..<slash] != "plain" {
            try options.apply(rest[..<slash])
            rest = rest[rest.index(after: slash)...]
        }
        return (options, try DWProxyURL(target: "/\(signature)/\(rest)"))
    }

    /// The JSON object, keys sorted: width, height, format, frames, size, orientation, blurhash, dominant_colors
    /// ([{"color": "#rrggbb", "fraction": f}]) and average ({"R","G","B","A"}), each as `options` ask.
    static func infoJSON(_ image: DWImage, _ options: DWInfoOptions) throws(DWWebImageError) -> Data {
        var object: [String: Any] = [:]
        if options.dimensions {
            let size = try image.reportedSize  // an SVG without a declared size: the size libvips renders it at
            object["width"] = size.width
            object["height"] = size.height
        }
        if options.format { object["format"] = image.format.rawValue }
        if options.frames { object["frames"] = image.frameCount }
        if options.size { object["size"] = image.data.count }
        if options.orientation { object["orientation"] = try image.exifOrientation }
        if options.blurHashX > 0 {
            object["blurhash"] = try image.blurHash(components: (options.blurHashX, options.blurHashY))
        }
        if options.dominantColors > 0 {
            object["dominant_colors"] = try image.dominantColors(count: options.dominantColors).map {
                ["color": $0.color.hex, "fraction": ($0.fraction * 1000).rounded() / 1000] as [String: Any]
            }
        }
        if options.average {
            let mean = try image.averageColor
            object["average"] = ["R": mean.red, "G": mean.green, "B": mean.blue, "A": mean.alpha]
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            throw DWWebImageError(.notAnImage, "cannot write the info JSON")
        }
        return data
    }
}
