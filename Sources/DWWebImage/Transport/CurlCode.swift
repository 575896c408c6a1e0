// CurlCode: the libcurl error codes the pipeline's policy names, as the `Int`s TransferFailure carries.
internal import CCurlShim

/// libcurl `CURLcode`s that policy code refers to by name.
enum CurlCode {
    /// CURLE_UNSUPPORTED_PROTOCOL (1).
    static let unsupportedProtocol = Int(CURLE_UNSUPPORTED_PROTOCOL.rawValue)
    /// CURLE_URL_MALFORMAT (3).
    static let malformedURL = Int(CURLE_URL_MALFORMAT.rawValue)
    /// CURLE_COULDNT_RESOLVE_HOST (6): the host name did not resolve.
    static let couldNotResolveHost = Int(CURLE_COULDNT_RESOLVE_HOST.rawValue)
    /// CURLE_COULDNT_CONNECT (7); also what a connection refused by the connection policy reports.
    static let couldNotConnect = Int(CURLE_COULDNT_CONNECT.rawValue)
    /// CURLE_PARTIAL_FILE (18): the body ended before the announced length.
    static let partialFile = Int(CURLE_PARTIAL_FILE.rawValue)
    /// CURLE_OPERATION_TIMEDOUT (28).
    static let timedOut = Int(CURLE_OPERATION_TIMEDOUT.rawValue)
    /// CURLE_TOO_MANY_REDIRECTS (47).
    static let tooManyRedirects = Int(CURLE_TOO_MANY_REDIRECTS.rawValue)
    /// CURLE_PEER_FAILED_VERIFICATION (60): the server's certificate was not accepted.
    static let peerFailedVerification = Int(CURLE_PEER_FAILED_VERIFICATION.rawValue)
    /// CURLE_OUT_OF_MEMORY (27).
    static let outOfMemory = Int(CURLE_OUT_OF_MEMORY.rawValue)

    /// Failures another attempt cannot fix: a refused protocol, a malformed URL, a redirect loop, a bad certificate.
    static let permanent: Set<Int> = [unsupportedProtocol, malformedURL, tooManyRedirects, peerFailedVerification]
}
