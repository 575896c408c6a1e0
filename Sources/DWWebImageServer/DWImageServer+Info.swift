// /info: imgproxy Pro's info endpoint — the source's facts as JSON, signed like processing URLs.
import DWWebImage
import DWWebImageProcessing
import Foundation
import Hummingbird
import HTTPTypes

extension DWImageServer {
    /// `GET /info/{signature}/{options}/{source}` (404 with `--no-info`): the signature covers the part after it,
    /// checked with ``DWServeConfiguration/infoSigners`` (by default the image keys, as imgproxy Pro); options are
    /// ``DWInfoOptions`` (only `exp` and `cb` with `--only-presets`). A cached answer is sent at once; otherwise the
    /// answer is made under the same bounds as an image (``infoAnswer(for:options:)``): the deadline (504), the
    /// source fetched through the pipeline, the measurement on a worker of ``pool`` (503 when it is full) within
    /// this server's limits, identical concurrent requests sharing one; before that work, the client's cold budget
    /// is charged (``coldInfoGate(_:_:target:)``: 429 when spent). Runs on the request's task.
    func infoResponse(for request: Request, target: String) async -> Response {
        guard configuration.infoEnabled else { return refuse(.notFound, "not found", note: " info-off") }
        let inner = String(target.dropFirst("/info".count))
        let url: DWProxyURL
        let options: DWInfoOptions
        switch checkedInfoRequest(inner) {
        case .success(let parsed): (options, url) = parsed
        case .failure(let refusal):
            return refuse(.init(code: refusal.status), refusal.message, note: refusal.note)
        }
        if let json = cachedInfo(for: url, options: options) { return infoJSONResponse(json, note: " info cached") }
        let gate = await coldInfoGate(url, options, target: inner)  // --cold-rate: charged only from here
        if let json = gate.json { return infoJSONResponse(json, note: " info result-storage") }
        if let refusal = gate.refusal { return refusal }
        return await withDeadline {
            do throws(DWWebImageError) {
                let (body, note) = try await self.infoAnswer(for: url, options: options)
                return self.infoJSONResponse(body, note: note)
            } catch {
                if error.isBusy { return self.busy() }
                let (status, message) = DWStatusMapping.status(for: error)
                return self.refuse(status, message, note: " error \(error.code.rawValue)")
            }
        }
    }

    /// Why an /info request is refused before any fetch: its status, message and access-log note.
    struct InfoRefusal: Error {
        let status: Int
        let message: String
        let note: String
    }

    /// An /info request's options and source from `inner` (its target after `/info`), checked as an image request
    /// is: the signature (``DWServeConfiguration/infoSigners``, by default the image keys), the URL, then the same
    /// source rules (no credentials, an allowed host, `s3://` only with `--allow-s3`). Notes the source for the
    /// access log. On the caller's thread.
    func checkedInfoRequest(_ inner: String) -> Result<(DWInfoOptions, DWProxyURL), InfoRefusal> {
        let url: DWProxyURL
        let options: DWInfoOptions
        do {
            let (signature, signedPath) = try DWProxyURL.split(target: inner)
            let signers = configuration.infoSigners ?? configuration.signers
            if !configuration.accepts(signature: signature, for: signedPath, signers: signers) {
                return .failure(InfoRefusal(status: 403, message: "invalid signature", note: " bad-signature"))
            }
            (options, url) = try Self.infoRequest(
                signature: signature, signedPath: signedPath,
                presets: configuration.imgproxy.presets,
                sources: configuration.imgproxy.sources)
        } catch {
            return .failure(InfoRefusal(status: error.status, message: error.description, note: " " + error.note))
        }
        DWAccessNote.current?.imageURL = url.source
        guard !Self.hasUserinfo(url.source) else {  // the same source rules as image requests
            return .failure(
                InfoRefusal(status: 400, message: "source URL must not contain credentials", note: " userinfo"))
        }
        guard url.source.hasPrefix("local://") || sourceIsAllowed(url) else {
            return .failure(InfoRefusal(status: 403, message: "source host is not allowed", note: " host-refused"))
        }
        if !configuration.allowS3, DWS3Location(url.source) != nil {
            return .failure(
                InfoRefusal(
                    status: 403, message: "s3:// sources are not enabled (--allow-s3)",
                    note: " s3-refused"))
        }
        return .success((options, url))
    }

    /// The 200 answer of `/info`: the JSON with its cache headers.
    func infoJSONResponse(_ body: Data, note: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.contentLength] = String(body.count)
        headers[.cacheControl] = "public, max-age=\(configuration.maxAge)"
        headers[.eTag] = DWETag.of(body)
        DWResponses.addSecurityHeaders(&headers)
        DWAccessNote.current?.text = note
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// An `/info` request's options and source, from the path after its signature: the info options come off the
    /// front, and what is left is a processing URL with no options (parsed with the server's `presets`, whose
    /// `--only-presets` also limits the info options to `exp` and `cb`, and its source `sources`). Any thread.
    static func infoRequest(
        signature: String, signedPath: String, presets: DWPresets = DWPresets(),
        sources: DWSourceRules = DWSourceRules()
    )
        throws(DWProxyURL.ParseError) -> (options: DWInfoOptions, url: DWProxyURL)
    {
        var options = DWInfoOptions()
        var rest = signedPath.dropFirst()[...]
        while let slash = rest.firstIndex(of: "/"), rest[..<slash].contains(":"), rest[..<slash] != "plain" {
            try options.apply(rest[..<slash], onlyPresets: presets.onlyPresets)
            rest = rest[rest.index(after: slash)...]
        }
        // The source part carries no processing options, presets or not.
        return (options, try DWProxyURL(target: "/\(signature)/\(rest)", sources: sources))
    }

    /// The JSON object, keys sorted: aspect_ratio (always), width, height, format, frames, size, orientation,
    /// blurhash, dominant_colors (`dc:1`: imgproxy Pro's {"vibrant": {"R","G","B"}, …}; `dc:N`: [{"color": "#rrggbb",
    /// "fraction": f}]), thumbhash, lqip and average
    /// ({"R","G","B","A"}), each as `options` ask.
    static func infoJSON(_ image: DWImage, _ options: DWInfoOptions) throws(DWWebImageError) -> Data {
        var object: [String: Any] = [:]
        let size = try image.reportedSize  // an SVG without a declared size: the size libvips renders it at
        object["aspect_ratio"] = (Double(size.width) / Double(max(1, size.height)) * 10_000).rounded() / 10_000
        if options.dimensions {
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
        if options.dominantPalette {
            object["dominant_colors"] = try image.dominantPalette(buildMissed: options.buildMissed).mapValues {
                ["R": $0.red, "G": $0.green, "B": $0.blue]
            }
        }
        if options.dominantColors > 0 {
            object["dominant_colors"] = try image.dominantColors(count: options.dominantColors).map {
                ["color": $0.color.hex, "fraction": ($0.fraction * 1000).rounded() / 1000] as [String: Any]
            }
        }
        if options.thumbHash { object["thumbhash"] = try image.thumbHash().base64EncodedString() }
        if options.lqipWidth > 0 { object["lqip"] = try DWPlaceholderURI.make(image, width: options.lqipWidth) }
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
