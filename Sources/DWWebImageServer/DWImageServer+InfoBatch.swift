// POST /info: placeholders for a whole page in one call — a JSON array of /info paths, answered by an array in order.
import DWWebImage
import Foundation
import Hummingbird
import HTTPTypes

extension DWImageServer {
    /// The largest `POST /info` body read: 64 KiB plus 8 KiB per source `--max-batch` allows.
    var maxInfoBatchBody: Int { 65_536 + configuration.clientLimits.maxBatch * 8_192 }

    /// `POST /info` (404 with `--no-info`): the body is a JSON array of strings, each what a `GET /info` path has
    /// after `/info` (`/{signature}/{options}/{source}`), each signed as that GET is. Nothing is fetched unless every
    /// element passes: a body that is not such an array, or an element that is not a path, is 400; more than
    /// `--max-batch` elements (or a body over ``maxInfoBatchBody``) is 413; one bad signature is 403 for the whole
    /// batch. Then the answer is 200 with a JSON array in the body's order: each element the object `GET /info`
    /// answers, or `{"error": MESSAGE, "status": CODE}` for a source refused (bad options, host not allowed), failed
    /// (the origin's 404 as 404, unreachable as 502, …), over the client's cold budget (429) or a full queue (503).
    /// Each element is answered as `GET /info` would be — the cache first, then the result storage, then a fetch
    /// shared with identical requests and a measurement on a worker of ``pool`` — a few at a time (as many as there
    /// are workers), all under one deadline (504 for the batch). Runs on the request's task.
    func infoBatchResponse(for request: Request) async -> Response {
        guard configuration.infoEnabled else { return refuse(.notFound, "not found", note: " info-off") }
        let limit = maxInfoBatchBody
        guard let body = try? await request.body.collect(upTo: limit) else {
            return refuse(.contentTooLarge, "POST /info body over \(limit) bytes", note: " batch-too-large")
        }
        guard let paths = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String] else {
            return refuse(.badRequest, "POST /info body is a JSON array of /info paths", note: " bad-batch")
        }
        let maxBatch = configuration.clientLimits.maxBatch
        guard paths.count <= maxBatch else {
            return refuse(
                .contentTooLarge, "\(paths.count) sources is over --max-batch \(maxBatch)", note: " batch-too-large")
        }
        let signers = configuration.infoSigners ?? configuration.signers
        for path in paths {  // every signature before anything else: one bad one refuses the batch
            guard let (signature, signedPath) = try? DWProxyURL.split(target: path) else {
                return refuse(.badRequest, "not an /info path: \(path.prefix(80))", note: " bad-batch")
            }
            guard configuration.accepts(signature: signature, for: signedPath, signers: signers) else {
                return refuse(.forbidden, "invalid signature", note: " bad-signature")
            }
        }
        let answers = await withDeadline { Self.infoBatchJSON(await self.infoBatchElements(paths)) }
        guard answers.status == .ok else { return answers }
        var response = answers
        response.headers[.cacheControl] = "no-store"
        DWAccessNote.current?.text = " info batch \(paths.count)"
        return response
    }

    /// Each path's answer (its JSON object's bytes), in order; at most as many made at once as there are workers.
    private func infoBatchElements(_ paths: [String]) async -> [Data] {
        var answers = [Data](repeating: Data(), count: paths.count)
        await withTaskGroup(of: (Int, Data).self) { group in
            var next = 0
            for _ in 0..<min(max(1, configuration.workers), paths.count) {
                let index = next
                group.addTask { (index, await self.infoBatchElement(paths[index])) }
                next += 1
            }
            while let (index, data) = await group.next() {
                answers[index] = data
                guard next < paths.count else { continue }
                let following = next
                group.addTask { (following, await self.infoBatchElement(paths[following])) }
                next += 1
            }
        }
        return answers
    }

    /// One element's answer: what `GET /info` with `path` would answer, its JSON object or an error object.
    private func infoBatchElement(_ path: String) async -> Data {
        let url: DWProxyURL
        let options: DWInfoOptions
        switch checkedInfoRequest(path) {
        case .success(let parsed): (options, url) = parsed
        case .failure(let refusal): return Self.infoError(refusal.status, refusal.message)
        }
        if let json = cachedInfo(for: url, options: options) { return json }
        let gate = await coldInfoGate(url, options, target: path)
        if let json = gate.json { return json }
        if gate.refusal != nil { return Self.infoError(429, "cold request budget spent, retry later") }
        do throws(DWWebImageError) {
            return try await infoAnswer(for: url, options: options).json
        } catch {
            if error.isBusy { return Self.infoError(503, "server busy, retry later") }
            let (status, message) = DWStatusMapping.status(for: error)
            return Self.infoError(status.code, message)
        }
    }

    /// `{"error": message, "status": status}`.
    static func infoError(_ status: Int, _ message: String) -> Data {
        let object: [String: Any] = ["error": message, "status": status]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    }

    /// The 200 answer of a batch: the elements as one JSON array.
    static func infoBatchJSON(_ elements: [Data]) -> Response {
        var body = Data("[".utf8)
        for (index, element) in elements.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(element)
        }
        body.append(UInt8(ascii: "]"))
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.contentLength] = String(body.count)
        DWResponses.addSecurityHeaders(&headers)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
