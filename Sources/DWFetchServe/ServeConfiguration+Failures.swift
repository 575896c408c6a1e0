// ServeConfiguration+Failures: `dwfetch serve`'s failure flags (DWFetchCLI/ServeFailureOptions.swift) mapped onto
// DWFailurePolicy.
import ArgumentParser
import DWFetchCLI
import DWWebImageServer
import HTTPTypes

extension DWFailurePolicy {
    /// The policy `options` ask for; a bad value is a ValidationError (exit 2). On the main thread, before the start.
    init(_ options: ServeFailureOptions) throws {
        self.init()
        for (ttl, flag) in [(options.negativeTTL, "--negative-ttl"), (options.negativeTTLGone, "--negative-ttl-gone")] {
            guard ttl.isFinite, (0...86_400).contains(ttl) else {
                throw ValidationError("\(flag) is 0 to 86400 seconds")
            }
        }
        (negativeTTL, negativeTTLGone) = (options.negativeTTL, options.negativeTTLGone)
        guard let rule = DWFallbackRule(parsing: options.fallbackOn) else {
            throw ValidationError(
                "--fallback-on expects any, or a list of 404, 4xx, 5xx, timeout, unreachable, invalid")
        }
        fallbackOn = rule
        guard HTTPField.Name(options.fallbackHeader) != nil else {
            throw ValidationError("--fallback-header is not a header name: \(options.fallbackHeader)")
        }
        fallbackHeader = options.fallbackHeader
    }
}
