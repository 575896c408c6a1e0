// ServeSecurityOptions+Configuration: `dwfetch serve`'s security flags (DWFetchCLI/ServeSecurityOptions.swift) mapped
// onto DWServeConfiguration: key pairs from flags, environment and key file, with their warnings.
import ArgumentParser
import DWFetchCLI
import DWWebImageServer
import DWFileIO
import Foundation

extension ServeSecurityOptions {
    /// Fills `configuration` (whose `host` and `jobs` are already set). Throws a ValidationError for unusable keys or
    /// an unsigned non-loopback listener; writes one warning line to stderr per short key, and one for a key file
    /// that group or others may read or write (the unsigned warning is the server's,
    /// ``DWImageServer/startupWarnings(_:)``).
    func apply(
        to configuration: inout DWServeConfiguration,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let pairs = try keyPairs(environment: environment)
        var signers: [DWURLSigner] = []
        for (key, salt) in pairs {
            guard let signer = DWURLSigner(keyHex: key, saltHex: salt, size: signatureSize) else {
                throw ValidationError("keys and salts must be hex (and a key not empty)")
            }
            if key.count / 2 < 32 { warn("a signature key is \(key.count / 2) bytes; use at least 32 random bytes") }
            signers.append(signer)
        }
        if signers.isEmpty, !Self.isLoopback(configuration.host), !allowUnsigned {
            // A thumbor-only deployment: its URLs are signed with --thumbor-key, and imgproxy's, with no key to
            // check, are refused rather than served unsigned.
            guard !configuration.thumbor.signers.isEmpty else {
                throw ValidationError(
                    "no --key: refusing to listen on \(configuration.host) unsigned; "
                        + "give a key, or --allow-unsigned")
            }
            configuration.refusesUnsignedImgproxy = true
        }
        // Unsigned otherwise: DWImageServer.init warns (DWImageServer.startupWarnings), for embedders too.
        configuration.signers = signers
        if !infoKeys.isEmpty {
            configuration.infoSigners = try zip(infoKeys, infoSalts).map { key, salt in
                guard let signer = DWURLSigner(keyHex: key, saltHex: salt, size: signatureSize) else {
                    throw ValidationError("--info-key and --info-salt must be hex (and a key not empty)")
                }
                return signer
            }
        }
        configuration.trustedSignatures = Set(trustedSignatures)
        configuration.secret = try secret(environment: environment)
        configuration.infoEnabled = !noInfo
        var limits = DWResultLimits()
        limits.maxDimension = maxResultDimension
        limits.maxPixels = maxResultPixels
        limits.maxAnimationFrames = maxAnimationFrames
        configuration.resultLimits = limits
        configuration.renderBudget = renderBudget
        configuration.sourceFormats = try allowedSourceFormats()
        if let workers { configuration.workers = workers }
        configuration.queue = queue
        configuration.requestTimeout = requestTimeout
        configuration.maxPerHost = maxPerHost
        configuration.proxy = proxy
        configuration.cacheSpace = cacheSpace
        configuration.cacheLimit = cacheLimit.bytes
        configuration.diskCache = !noDiskCache
        configuration.sourceMinUses = sourceMinUses
        configuration.cacheMaxAge = cacheMaxAge
        configuration.headerTimeout = headerTimeout
        configuration.idleTimeout = idleTimeout
        configuration.maxConnections = maxConnections
        configuration.writeTimeout = writeTimeout
        configuration.maxConnectionsPerClient = maxConnectionsPerClient
        configuration.metricsBind = metricsBind.flatMap(Self.hostPort)
    }

    /// Key/salt pairs from --key/--salt, IMGPROXY_KEY/IMGPROXY_SALT (comma-separated, paired in order) and --key-file.
    func keyPairs(environment: [String: String]) throws -> [(String, String)] {
        var pairs = Array(zip(keys, salts))
        let split = { (name: String) in
            (environment[name] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let envKeys = split("IMGPROXY_KEY"), envSalts = split("IMGPROXY_SALT")
        guard envKeys.count == envSalts.count else {
            throw ValidationError("IMGPROXY_KEY and IMGPROXY_SALT must list as many values")
        }
        pairs += zip(envKeys, envSalts)
        if let keyFile {
            guard let text = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
                throw ValidationError("cannot read --key-file \(keyFile)")
            }
            var info = stat()
            if stat(keyFile, &info) == 0, info.st_mode & 0o077 != 0 {
                warn(
                    "--key-file \(keyFile) is readable or writable by others than its owner "
                        + "(mode \(String(info.st_mode & 0o777, radix: 8))): chmod 600 it")
            }
            for line in text.split(whereSeparator: \.isNewline) {
                let line = line.trimmingCharacters(in: .whitespaces)
                if line.isEmpty || line.hasPrefix("#") { continue }
                let parts = line.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2 else { throw ValidationError("--key-file lines are KEY:SALT (hex)") }
                pairs.append((String(parts[0]), String(parts[1])))
            }
        }
        return pairs
    }

    /// The bearer token: `--secret-file`'s first line, else `IMGPROXY_SECRET`; nil when neither gives one.
    func secret(environment: [String: String]) throws -> DWBearerSecret? {
        if let secretFile {
            guard let text = try? String(contentsOfFile: secretFile, encoding: .utf8),
                let line = text.split(whereSeparator: \.isNewline).first, let secret = DWBearerSecret(String(line))
            else { throw ValidationError("cannot read a secret from --secret-file \(secretFile)") }
            return secret
        }
        return environment["IMGPROXY_SECRET"].flatMap(DWBearerSecret.init)
    }

    private func warn(_ text: String) {
        StandardStream.error.write("dwfetch serve: warning: \(text)\n")
    }

}
