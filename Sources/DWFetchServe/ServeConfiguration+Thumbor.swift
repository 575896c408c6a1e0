// ServeConfiguration+Thumbor: `dwfetch serve`'s thumbor flags (DWFetchCLI/ServeThumborOptions.swift) mapped onto
// DWThumborSettings.
import ArgumentParser
import DWFetchCLI
import DWWebImageServer
import Foundation

extension DWThumborSettings {
    /// The settings `options` ask for, with `THUMBOR_SECURITY_KEY` from `environment` after the flags' keys.
    init(_ options: ServeThumborOptions, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        self.init()
        let keys = options.keys + [environment["THUMBOR_SECURITY_KEY"]].compactMap { $0 }.filter { !$0.isEmpty }
        signers = try keys.map { key in
            guard let signer = DWThumborSigner(key: key) else {
                throw ValidationError("--thumbor-key must not be empty")
            }
            return signer
        }
        allowUnsafe = options.allowUnsafe
        respectOrientation = options.respectOrientation
        preserveEXIF = options.preserveEXIF
        watermarkHosts = options.watermarkAllowHosts.map { $0.lowercased() }
    }
}
