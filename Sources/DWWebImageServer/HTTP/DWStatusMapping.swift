// DWStatusMapping: a pipeline error → the status and one-line message the server answers (SPEC's table).
import DWWebImage
import HTTPTypes

/// SPEC's table of outcomes. Pure; callable from any thread.
enum DWStatusMapping {
    /// The status and one-line message for a pipeline error.
    static func status(for error: DWWebImageError) -> (HTTPResponse.Status, String) {
        switch error.code {
        case .emptyURL, .invalidURL:
            return (.badRequest, "source URL is not usable: \(error.message)")
        case .notAnImage:
            return (.unprocessableContent, "source is not a decodable image")
        case .tooLarge:
            return (.unprocessableContent, "source too large: \(error.message)")
        case .transport:
            if let address = error.refusedAddress { return (.forbidden, "source address \(address) is not allowed") }
            if error.isTimeout { return (.gatewayTimeout, "origin timed out") }
            return (.badGateway, "origin unreachable: \(error.message)")
        case .httpStatus:
            let status = error.httpStatus ?? 0
            if status == 404 || status == 410 { return (.notFound, "origin answered \(status)") }
            return (.badGateway, "origin answered \(status)")
        case .notInCache, .cacheIO, .cancelled:
            return (.badGateway, error.message)
        }
    }
}
