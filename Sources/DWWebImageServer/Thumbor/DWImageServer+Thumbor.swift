// DWImageServer+Thumbor: the thumbor dialect's entry in the image route, and its health probe.
import DWImageTransform
import DWWebImage
import Hummingbird

extension DWImageServer {
    /// The thumbor URL `target` is, parsed (signature first), or nil when the path is imgproxy's
    /// (``DWThumborDialect``). Throws the refusal: 403 for a bad signature or `unsafe` refused, else 400.
    /// Runs on the caller's thread.
    func thumborURL(target: String) throws(DWProxyURL.ParseError) -> DWThumborURL? {
        let settings = configuration.thumbor
        // Refused unsigned imgproxy URLs count as signed: `unsafe` can then never be an imgproxy signature.
        let imgproxySigned = !configuration.signers.isEmpty || configuration.refusesUnsignedImgproxy
        guard DWThumborDialect.isThumbor(target, settings: settings, imgproxySigned: imgproxySigned)
        else { return nil }
        return try DWThumborURL(target: target, settings: settings)
    }

    /// thumbor's `meta` JSON for `job`, whose rendered answer is `output`: the source's size from the original (the
    /// pipeline's cache has it: the variant was just made from it). Runs in the request's task.
    func thumborMeta(_ meta: DWThumborMeta, for job: DWImageJob, output: DWImage) async -> Response {
        let source = (try? await variant(of: job.url.source, plan: nil)) ?? output
        let converted = meta.autoJPG && source.format == .png && output.format == .jpeg
        let json = meta.json(
            source: (source.pixelWidth, source.pixelHeight),
            output: (output.pixelWidth, output.pixelHeight), frames: output.frameCount,
            converted: converted)
        return DWResponses.text(.ok, json, contentType: "application/json")
    }

    /// thumbor's `/healthcheck` answer: 200 `WORKING`, never cached.
    static func thumborHealthcheck() -> Response {
        DWAccessNote.current?.isProbe = true
        return DWResponses.text(.ok, "WORKING")
    }
}
