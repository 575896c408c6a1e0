// An image request within the server's bounds: the memory hit first, then the work under the deadline; the busy
// answer when every worker is taken.
import DWLocking
import DWWebImage
import Foundation
import Hummingbird
import HTTPTypes

extension DWImageServer {

    /// The image answer within the server's bounds. The URL is parsed and the memory cache asked first, right here
    /// in the request's task: a hot variant is answered without child tasks, deadline timer or worker. Anything
    /// else goes on under the deadline (504 when `requestTimeout` runs out first; the request's fetch is then
    /// cancelled, and its transform stopped when nobody else waits for it): the download is bounded by the download
    /// slots and `--timeout`, and only the transform takes one of ``pool``'s workers (503 with `Retry-After` at
    /// once when every worker is busy and the queue is full). Runs on the request's task.
    func boundedImageResponse(for request: Request, target: String) async -> Response {
        DWHopTrace.arrive("request task")
        let job: DWImageJob
        switch imagePlan(for: request, target: target) {
        case .answer(let response):
            return response
        case .fetch(let fetch):
            job = fetch
        }
        if let hit = memoryAnswer(job, to: request) { return hit }
        // --cold-rate (a thumbor watermark's bytes name the variant: from memory when there)
        if let refusal = await coldRefusal(memoryWatermarked(job) ?? job, target: target) { return refusal }
        return await withDeadline { await self.answer(job, to: request) }
    }

    /// `work`'s response, or 504 when `requestTimeout` runs out first (a nil from `work` also means the 504). `work`
    /// runs right here, in the request's task, inside a ``DWCancellationScope`` that a timer cancels at the
    /// deadline: every fetch, worker and shared flight `work` waits for then ends its wait at once (10007), and the
    /// answer is the 504. No task is made for the work, so a request that meets its deadline crosses no extra task.
    func withDeadline(_ work: @escaping @Sendable () async -> Response?) async -> Response {
        let scope = DWCancellationScope()
        let timer = DispatchWorkItem { scope.cancel() }
        DispatchQueue.global().asyncAfter(deadline: .now() + configuration.requestTimeout, execute: timer)
        let response = await DWCancellationScope.$current.withValue(scope) { await work() }
        timer.cancel()
        if let response, !scope.isCancelled { return response }
        DWAccessNote.current?.text = " deadline"
        return DWResponses.error(.gatewayTimeout, "request took too long")
    }

    /// ``DWServeConfiguration/queueFullStatus`` (503, or imgproxy's 429) with `Retry-After: 1`: every worker busy and
    /// the queue full (noted for the access log).
    func busy() -> Response {
        DWAccessNote.current?.text = " queue-full"
        let status = HTTPResponse.Status(code: configuration.queueFullStatus)
        var response = DWResponses.error(status, "server busy, retry later")
        response.headers[HTTPField.Name("Retry-After")!] = "1"
        return response
    }
}
