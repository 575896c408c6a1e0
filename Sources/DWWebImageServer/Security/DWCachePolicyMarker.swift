// DWCachePolicyMarker: a cache space's originals are served only under the fetch policy they were fetched under.
import DWWebImage
import DWWebImageProcessing
import Foundation

/// Remembers, beside serve's cache space, which fetch policy filled it (the SSRF guard's allowed networks, the
/// allowed hosts, the proxy; and the animation frames processed and the encoder settings, which variants depend on). A
/// server that starts with another policy empties the space first, so nothing fetched under a looser policy (or by
/// another program) is served without the connection checks the current one makes.
///
/// The marker is `<root>/.serve-policy-<space>`: a dot name, which the cache's own listing and `clear(allSpaces:)`
/// skip. Called once, at start-up, before the server accepts connections.
enum DWCachePolicyMarker {
    /// A digest of everything that decides which addresses a fetch may reach.
    static func fingerprint(of configuration: DWServeConfiguration) -> String {
        var text = "dwserve-fetch-policy-v1\n"
        text += "networks:" + configuration.allowedNetworks.map { "\($0)" }.sorted().joined(separator: ",") + "\n"
        text += "hosts:" + configuration.allowedHosts.map { $0.lowercased() }.sorted().joined(separator: ",") + "\n"
        text += "proxy:" + (configuration.proxy ?? "") + "\n"
        // Variants of animations depend on it, and their cache keys do not say it.
        let limits = configuration.resultLimits  // by budget, variants depend on --max-result-pixels too
        text += "animation-frames:\(limits.maxAnimationFrames.map(String.init) ?? "budget/\(limits.maxPixels)")\n"
        if configuration.ignoresSSLVerification { text += "tls:insecure\n" }  // only when set: old markers still match
        if !configuration.origins.isEmpty {  // what NAME://PATH means (never a header or credential); only when set
            text += "origins:" + configuration.origins.map(\.place).sorted().joined(separator: ",") + "\n"
        }
        let encoder = configuration.imgproxy.encoder  // variants' bytes depend on it; only when not the default
        if encoder != DWEncoderSettings() { text += "encoder:\(encoder)\n" }
        return DWDigest.sha256Hex(text)
    }

    /// Empties `cache`'s space unless its marker names `fingerprint`, then writes the marker (mode 0600).
    /// Returns whether the space was emptied.
    @discardableResult
    static func adopt(_ cache: DWWebImageCache, fingerprint: String) -> Bool {
        let root = cache.configuration.rootDirectory
        try? FileManager.default.createDirectory(
            at: root, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let marker = root.appendingPathComponent(".serve-policy-" + cache.directory.lastPathComponent)
        let recorded = (try? String(contentsOf: marker, encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard recorded != fingerprint else { return false }
        cache.clear()
        _ = FileManager.default.createFile(
            atPath: marker.path, contents: Data((fingerprint + "\n").utf8),
            attributes: [.posixPermissions: 0o600])
        return true
    }
}
