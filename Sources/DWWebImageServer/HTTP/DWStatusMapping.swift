// DWStatusMapping: a pipeline error → the status and one-line message the server answers (the table in docs/serving.md,
// "Answers").
import DWWebImage
import HTTPTypes

/// The documented table of outcomes (docs/serving.md, "Answers"). Pure; callable from any thread.
enum DWStatusMapping {
    /// The status and one-line message for a pipeline error. The message names the class of failure only — never
    /// an address, a file path, libcurl's text or anything the origin sent; the details go to the access log (`-v`).
    static func status(for error: DWWebImageError) -> (HTTPResponse.Status, String) {
        switch error.code {
        case .emptyURL, .invalidURL:
            return (.badRequest, "source URL is not usable")
        case .notAnImage:
            return (.unprocessableContent, "source is not a decodable image")
        case .tooLarge:
            return (.unprocessableContent, "image is over a size limit")
        case .transport:
            if error.refusedAddress != nil { return (.forbidden, "source address not allowed") }
            if error.isTimeout { return (.gatewayTimeout, "origin timed out") }
            return (.badGateway, "origin unreachable")
        case .httpStatus:
            if error.refusedRedirect != nil { return (.forbidden, "redirect target not allowed") }
            let status = error.httpStatus ?? 0
            if status == 404 || status == 410 { return (.notFound, "origin answered \(status)") }
            return (.badGateway, "origin answered \(status)")
        case .cancelled:
            if error.isBusy { return (.serviceUnavailable, "server busy, retry later") }
            return (.gatewayTimeout, "request took too long")
        case .notInCache, .cacheIO:
            return (.badGateway, "internal error")
        }
    }
}
