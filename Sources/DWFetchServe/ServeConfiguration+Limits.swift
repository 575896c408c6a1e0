// ServeConfiguration+Limits: `dwfetch serve`'s per-client limit flags (DWFetchCLI/ServeLimitsOptions.swift) mapped
// onto DWClientLimits.
import ArgumentParser
import DWFetchCLI
import DWWebImageServer

extension DWClientLimits {
    /// The limits `options` ask for (checked by ``ServeLimitsOptions/validate()``); `--limit-by key` needs a `--key`.
    /// On the main thread, before the start.
    init(_ options: ServeLimitsOptions, hasKeys: Bool) throws {
        self.init()
        coldRate = try options.coldRatePerSecond()
        coldBurst = options.coldBurst
        limitBy = options.limitBy == "key" ? .key : .ip
        if limitBy == .key, !hasKeys { throw ValidationError("--limit-by key needs a --key (the key is the client)") }
        allowedReferers = options.allowReferers.map { $0.lowercased() }
        maxBatch = options.maxBatch
    }
}
