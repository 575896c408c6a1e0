// The image answer: URL and signature, allowed host, then fetch + transform (or a local file, or the fallback image),
// then headers (ETag, 304, cache, Content-Disposition).
import DWWebImage
import Hummingbird
import HTTPTypes

extension DWImageServer {
    /// Answers one image request; never throws (every failure is a one-line text response, and a note for the
    /// access log). Runs in the request's task; the fetch and transform run on the pipeline's queues.
    func imageResponse(for request: Request, target: String) async -> Response {
        let url: DWProxyURL
        do {
            // The signature first (as imgproxy does): an unsigned request learns nothing about the rest.
            let (signature, signedPath) = try DWProxyURL.split(target: target)
            if !configuration.signers.isEmpty,
               !configuration.signers.contains(where: { $0.isValid(signature: signature, for: signedPath) }) {
                return refuse(.forbidden, "invalid signature", note: " bad-signature")
            }
            url = try DWProxyURL(target: target, presets: configuration.imgproxy.presets)
        } catch {
            return refuse(.init(code: error.status), error.description, note: error.status == 404 ? " expired" : " bad-url")
        }
        guard !Self.hasUserinfo(url.source) else {
            return refuse(.badRequest, "source URL must not contain credentials", note: " userinfo")
        }
        let isLocal = url.source.hasPrefix("local://")
        guard isLocal || hostIsAllowed(url.sourceHost) else {
            return refuse(.forbidden, "source host is not allowed", note: " host-refused")
        }
        if !configuration.allowS3, DWS3Location(url.source) != nil {
            return refuse(.forbidden, "s3:// sources are not enabled (--allow-s3)", note: " s3-refused")
        }
        let named = url.options.transform.format
        let acceptFormats = configuration.acceptFormats
        let bucket = url.options.raw ? DWAcceptBucket() : acceptFormats.bucket(accept: request.headers[.accept])
        let chain = transformChain(for: url, bucket: bucket)
        var image: DWImage
        var status = HTTPResponse.Status.ok, maxAge = configuration.maxAge
        do {
            image = isLocal ? try localImage(url.source, chain: chain) : try await variant(of: url.source, chain: chain)
        } catch {
            guard let fallback = fallbackImage(chain: chain) else {
                let (status, message) = DWStatusMapping.status(for: error)
                return refuse(status, message, note: " error \(error.code.rawValue): \(error.message)")
            }
            (image, status) = (fallback, .init(code: configuration.imgproxy.fallbackStatus))
            maxAge = configuration.imgproxy.fallbackMaxAge ?? maxAge
        }
        guard image.frameCount <= configuration.maxFrames else {
            return refuse(.unprocessableContent, "\(image.frameCount) frames is over the limit of \(configuration.maxFrames)",
                          note: " frames")
        }
        guard let contentType = image.format.mimeType else {
            return refuse(.unprocessableContent, "source is not an image", note: " not-image")
        }
        DWAccessNote.current?.text = " \(image.source)"
        var extra = HTTPFields()
        if url.options.filename != nil || url.options.returnAttachment {
            extra[.contentDisposition] = Self.contentDisposition(url.options, source: url.source, format: image.format)
        }
        let varies = !url.options.raw && acceptFormats.varies(explicit: named)
        return DWResponses.image(served.body(for: image.data), contentType: contentType, maxAge: maxAge, varies: varies,
                                 ifNoneMatch: request.headers[values: .ifNoneMatch], status: status, extra: extra)
    }

    /// A one-line error answer, its reason noted for the access log.
    func refuse(_ status: HTTPResponse.Status, _ message: String, note: String) -> Response {
        DWAccessNote.current?.text = note
        return DWResponses.error(status, message)
    }
}
