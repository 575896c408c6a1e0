// ServeConfiguration+Options: `dwfetch serve`'s flags (declared in DWFetchCLI/ServeOptions.swift) mapped onto
// DWServeConfiguration, with the checks that need the server's own parsers.
import ArgumentParser
import DWFetchCLI
import DWWebImageServer
import Foundation

extension DWServeConfiguration {
    /// The configuration `options` ask for; a bad key, salt or CIDR is a ValidationError (exit 2).
    init(_ options: ServeOptions) throws {
        self.init()
        host = options.host
        port = options.port
        if let key = options.key, let salt = options.salt {
            guard let signer = DWURLSigner(keyHex: key, saltHex: salt) else {
                throw ValidationError("--key and --salt must be hex (and the key not empty)")
            }
            self.signer = signer
        }
        allowedHosts = options.allowHosts
        allowedNetworks = try options.allowNetworks.map { cidr in
            guard let parsed = DWCIDR(cidr) else { throw ValidationError("not a CIDR: \(cidr)") }
            return parsed
        }
        cacheDirectory = options.cacheDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
        maxSize = options.maxSize.bytes
        maxPixels = options.maxPixels
        maxFrames = options.maxFrames
        maxAge = options.maxAge
        autoFormat = options.autoFormat
        jobs = options.jobs
        timeout = options.timeout
        memoryCacheBytes = options.memoryCache * 1024 * 1024
        shutdownTimeout = options.shutdownTimeout
        logLevel = options.verbose ? .info : .warning
    }
}
