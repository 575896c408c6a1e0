// DWServeConfiguration: everything `dwfetch serve` is told on its command line, as one value.
import DWWebImage
import Foundation
import Logging

/// How a ``DWImageServer`` listens, checks, fetches and answers.
public struct DWServeConfiguration: Sendable {
    /// Address to listen on (default 127.0.0.1).
    public var host = "127.0.0.1"
    /// Port to listen on; 0 picks a free one (the chosen port is printed at start-up).
    public var port = 8080
    /// Verifies URL signatures; nil accepts any signature segment ("insecure").
    public var signer: DWURLSigner?
    /// Source hosts allowed (exact, case-insensitive; "*.example.com" also allows subdomains); empty = any host.
    public var allowedHosts: [String] = []
    /// Networks the SSRF guard lets through (e.g. 127.0.0.1/32 for a local origin).
    public var allowedNetworks: [DWCIDR] = []
    /// Cache root; nil = the library's default ($XDG_CACHE_HOME/dwwebimage, else ~/.cache/dwwebimage).
    public var cacheDirectory: URL?
    /// Largest source body accepted, bytes (default 50 MiB); more is 422.
    public var maxSize: Int64 = 50 * 1024 * 1024
    /// Largest source pixel count (width × height) accepted (default 50 MP); more is 422, found from the header.
    public var maxPixels = 50_000_000
    /// Most animation frames accepted in a source (default 1000); more is 422, counted from the header.
    public var maxFrames = 1000
    /// `Cache-Control: public, max-age=N` of images (default one year).
    public var maxAge = 31_536_000
    /// Serve WebP (else AVIF) when the request's Accept allows and the URL names no format; adds `Vary: Accept`.
    public var autoFormat = false
    /// Concurrent origin downloads (default 16).
    public var jobs = 16
    /// Whole-request limit for an origin fetch, seconds (default 15); running out is 504.
    public var timeout: TimeInterval = 15
    /// Bytes the memory cache of originals and variants may hold (default 128 MiB).
    public var memoryCacheBytes = 128 * 1024 * 1024
    /// Seconds a shutdown (SIGTERM, SIGINT) waits for accepted responses to be written in full (default 30); what is
    /// still being written then is cut, logged and counted, and the server exits 0 all the same.
    public var shutdownTimeout: Double = 30
    /// Access log: one line per request at `.info`; the default `.warning` logs nothing per request.
    public var logLevel: Logger.Level = .warning

    /// Cap glibc's malloc arenas at 2 and trim the heap after bursts of transforms, so RSS stays flat (default on;
    /// `DWSERVE_MALLOC_TUNING=0` in the environment turns it off, for measuring what it does).
    public var tunesMalloc = ProcessInfo.processInfo.environment["DWSERVE_MALLOC_TUNING"] != "0"

    /// The defaults above.
    public init() {}
}
