// DWSurrogateKeys: the purge keys an image answer carries, so a CDN or Varnish can drop every variant of a source.
import DWWebImage
import HTTPTypes

/// `Surrogate-Key` and `xkey` (space-separated: Fastly, Varnish's xkey vmod) and `Cache-Tag` (comma-separated:
/// Cloudflare, Akamai) with the source's hash — lowercase hex SHA-256 of the source URL as the request carries it —
/// and the URL's `tag:` when it has one. Every variant of one source carries the same hash, so one purge by it drops
/// them all. Pure; any thread.
enum DWSurrogateKeys {
    /// The source's hash: what a purge names it by.
    static func sourceHash(_ source: String) -> String {
        DWDigest.sha256Hex(source)
    }

    /// The three headers for `url`.
    static func fields(for url: DWProxyURL) -> HTTPFields {
        let keys = [sourceHash(url.source)] + (url.options.tag.map { [$0] } ?? [])
        var fields = HTTPFields()
        fields[HTTPField.Name("Surrogate-Key")!] = keys.joined(separator: " ")
        fields[HTTPField.Name("xkey")!] = keys.joined(separator: " ")
        fields[HTTPField.Name("Cache-Tag")!] = keys.joined(separator: ",")
        return fields
    }
}
