// The image answer: URL and signature, allowed host, then fetch + transform (or a local file, or the fallback image),
// then headers (ETag, 304, cache, Content-Disposition).
import DWWebImage
import DWWebImageProcessing
import Hummingbird
import HTTPTypes

/// An image request parsed and checked (signature, source, host), with its variant plan: what is left is the fetch.
struct DWImageJob: Sendable {
    let url: DWProxyURL
    /// A `local:///path` source (read under `--local-root` by ``DWLocalFileLoader``, kept in memory only).
    let isLocal: Bool
    /// The format the URL names (nil: picked per source, or by `Accept`).
    let named: DWImageFormat?
    /// What to make of the source (nil for `raw:1`: its bytes as they are).
    let plan: DWVariantPlan?
    /// The purge keys of every answer (``DWSurrogateKeys``), made once with the job.
    let surrogateKeys: HTTPFields
    /// A thumbor URL's own facts (`max_age`); nil for an imgproxy URL.
    var thumbor: DWThumborRequest? = nil
}

/// The first part of an image answer: a refusal already, or a job to fetch.
enum DWImagePlan: Sendable {
    case answer(Response)
    case fetch(DWImageJob)
}

extension DWImageServer {
    /// Everything before the fetch, on the caller's thread: the signature first (as imgproxy does: an unsigned
    /// request learns nothing about the rest), the URL, the source's scheme and host, then the variant plan. A target
    /// planned before (with the same `Accept`) comes from ``plans`` (``DWPlanMemo``: never one with `exp:`).
    func imagePlan(for request: Request, target: String) -> DWImagePlan {
        let accept = planKey(for: request)  // Accept, and the client hints when they are on
        if let job = plans.job(target: target, accept: accept) {  // parsed before
            if let tag = job.url.options.tag { tagIndex.record(tag, source: job.url.source) }
            return .fetch(job)
        }
        let plan = parsePlan(for: request, target: target)
        if case .fetch(let job) = plan {
            plans.keep(job, target: target, accept: accept)
            if let tag = job.url.options.tag { tagIndex.record(tag, source: job.url.source) }  // for a purge by tag
        }
        return plan
    }

    /// ``imagePlan(for:target:)`` made now.
    private func parsePlan(for request: Request, target: String) -> DWImagePlan {
        let url: DWProxyURL
        var thumbor: DWThumborRequest?
        do {
            if let parsed = try thumborURL(target: target) {  // thumbor's dialect (Thumbor/, docs/thumbor.md)
                (url, thumbor) = (parsed.url, parsed.request)
            } else {
                let (signature, signedPath) = try DWProxyURL.split(target: target)
                if !configuration.accepts(signature: signature, for: signedPath, signers: configuration.signers) {
                    return .answer(refuse(.forbidden, "invalid signature", note: " bad-signature"))
                }
                url = try DWProxyURL(
                    target: target, presets: configuration.imgproxy.presets,
                    sources: configuration.imgproxy.sources, defaults: startingOptions(for: request))
            }
            DWAccessNote.current?.imageURL = url.source
        } catch {
            let note = error.status == 403 ? "bad-signature" : error.note
            return .answer(refuse(.init(code: error.status), error.description, note: " " + note))
        }
        guard !Self.hasUserinfo(url.source) else {
            return .answer(refuse(.badRequest, "source URL must not contain credentials", note: " userinfo"))
        }
        let isLocal = url.source.hasPrefix("local://")
        guard isLocal || sourceIsAllowed(url) else {
            return .answer(refuse(.forbidden, "source host is not allowed", note: " host-refused"))
        }
        if !configuration.allowS3, DWS3Location(url.source) != nil {
            return .answer(refuse(.forbidden, "s3:// sources are not enabled (--allow-s3)", note: " s3-refused"))
        }
        let bucket =
            url.options.raw ? DWAcceptBucket() : configuration.acceptFormats.bucket(accept: request.headers[.accept])
        return .fetch(
            DWImageJob(
                url: url, isLocal: isLocal, named: url.options.transform.format,
                plan: plan(for: url, bucket: bucket), surrogateKeys: DWSurrogateKeys.fields(for: url),
                thumbor: thumbor))
    }

    /// The answer when the pipeline's memory cache holds the job's result (a hot variant): looked up and answered
    /// on the caller's thread, no fetch started; nil otherwise.
    func memoryAnswer(_ job: DWImageJob, to request: Request) -> Response? {
        guard job.thumbor?.meta == nil,  // thumbor's meta answers JSON (answer(_:to:))
            !mayNeedRevalidation(job),  // answer(_:to:) asks the origin first
            let marked = memoryWatermarked(job),  // the plan's key names a thumbor watermark's bytes
            let image = manager.imageFromMemory(withURL: job.url.source, options: Self.options(for: marked.plan))
        else { return nil }
        return respond(
            marked, with: image, status: .ok, maxAge: job.thumbor?.maxAge ?? configuration.maxAge, to: request)
    }

    /// The job fetched (and transformed) through the pipeline, or its fallback image, then answered (503 when the
    /// worker pool refused the transform). Runs in the request's task; the fetch runs on the pipeline's queues, the
    /// transform (and a `local://` read) on ``pool``'s threads.
    func answer(_ planned: DWImageJob, to request: Request) async -> Response {
        let job: DWImageJob
        do throws(DWWebImageError) {
            job = try await withThumborWatermark(planned)  // thumbor's watermark() (DWImageServer+Watermark)
        } catch {
            return watermarkRefusal(error)
        }
        var image: DWImage
        var status = HTTPResponse.Status.ok, maxAge = job.thumbor?.maxAge ?? configuration.maxAge
        var marks = HTTPFields()
        await revalidateIfDue(job)  // --revalidate-after
        do {
            let made = try await budgetedVariant(job)  // local:// too (DWLocalFileLoader)
            image = made.image
            if made.isStandIn { maxAge = min(maxAge, configuration.encodeBudget.standInMaxAge) }  // --encode-budget
            if let meta = job.thumbor?.meta { return await thumborMeta(meta, for: job, output: image) }
        } catch {
            if error.isBusy { return busy() }  // every worker busy, the queue full: not the fallback's case
            if error.isRemembered { marks[Self.negativeCacheHeader] = "1" }  // no origin request was made
            if let stale = await staleImage(for: job, after: error) {  // stale-if-error beats the fallback
                marks[Self.staleHeader] = "1"
                var response = respond(job, with: stale, status: .ok, maxAge: 60, marks: marks, to: request)
                response.headers[.cacheControl] = staleCacheControl
                return response
            }
            guard configuration.failures.fallbackOn.matches(error), let fallback = await fallbackImage(plan: job.plan)
            else {
                let (status, message) = DWStatusMapping.status(for: error)
                var response = refuse(status, message, note: " error \(error.code.rawValue): \(error.message)")
                response.headers.append(contentsOf: marks)
                return response
            }
            (image, status) = (fallback, .init(code: configuration.imgproxy.fallbackStatus))
            maxAge = configuration.imgproxy.fallbackMaxAge ?? maxAge
            marks[HTTPField.Name(configuration.failures.fallbackHeader)!] = "1"  // checked at start
        }
        return respond(job, with: image, status: status, maxAge: maxAge, marks: marks, to: request)
    }

    /// `X-Negative-Cache: 1`: the answer repeats a recent failure of the source without asking the origin.
    static let negativeCacheHeader = HTTPField.Name("X-Negative-Cache")!

    /// The response for `image`: a known type checked (and, for `raw:1`, which has no plan to check it, the frame
    /// limit), then the body (made once per image, ``DWServedBytes``) with its headers (`X-Frames-Dropped` when its
    /// budget cut an animation: ``framesDropped(_:_:)``), or a 304. `marks` (a
    /// fallback's header, the negative cache's) are added; a fallback answer carries no `ETag`, so no cache
    /// revalidates a placeholder into a real image's place.
    private func respond(
        _ job: DWImageJob, with image: DWImage, status: HTTPResponse.Status, maxAge: Int,
        marks: HTTPFields = HTTPFields(), to request: Request
    ) -> Response {
        if job.url.options.raw, let error = Self.framesError(image, maxFrames: configuration.maxFrames) {
            return refuse(.unprocessableContent, error.message, note: " frames")
        }
        guard let contentType = job.thumbor != nil && image.format == .heic ? "image/heif" : image.format.mimeType
        else {
            return refuse(.unprocessableContent, "source is not an image", note: " not-image")
        }
        if logger.logLevel <= .info { DWAccessNote.current?.text = " " + image.source.rawValue }  // the log's only
        var extra = marks
        extra.append(contentsOf: job.surrogateKeys)
        let options = job.url.options
        if options.filename != nil || options.returnAttachment {
            extra[.contentDisposition] = Self.contentDisposition(options, source: job.url.source, format: image.format)
        }
        if configuration.setsCanonicalHeader, DWURLBytes.simpleHTTPAuthority(job.url.source) != nil {
            // imgproxy's IMGPROXY_SET_CANONICAL_HEADER
            extra[HTTPField.Name("Link")!] = "<\(job.url.source)>; rel=\"canonical\""
        }
        if configuration.imgproxy.clientHints, !options.raw { extra[.vary] = DWClientHints.vary }
        let varies = !options.raw && configuration.acceptFormats.varies(explicit: job.named)
        let isFallback = marks[HTTPField.Name(configuration.failures.fallbackHeader)!] != nil
        if !isFallback, let dropped = framesDropped(job, image) { extra[Self.framesDroppedHeader] = String(dropped) }
        var response = DWResponses.image(
            served.body(for: image.data), contentType: contentType, maxAge: maxAge, varies: varies,
            ifNoneMatch: request.headers[values: .ifNoneMatch], status: status, extra: extra,
            extraNamesAreOthers: marks.isEmpty,  // the fallback header's name is configured; the rest are fixed
            validators: !isFallback && configuration.usesETag)
        if job.thumbor?.maxAge == 0 { response.headers[.cacheControl] = nil }  // thumbor's max_age(0)
        return addingOriginHeaders(
            originMetadata(for: job, isFallback: isFallback), to: response, for: job,
            request: request)
    }

    /// The pipeline's options for a plan (none without one: the source itself).
    static func options(for plan: DWVariantPlan?) -> DWWebImageOptions {
        plan.map { .processors([$0]) } ?? []
    }

    /// A one-line error answer, its reason noted for the access log.
    func refuse(_ status: HTTPResponse.Status, _ message: String, note: String) -> Response {
        DWAccessNote.current?.text = note
        return DWResponses.error(status, message)
    }
}
