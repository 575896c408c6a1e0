// URLValidator: from a user's URL string to an ASCII http(s) URL libcurl can fetch, or error 10001/10002.
import Foundation

enum URLValidator {
    /// Returns the URL with non-ASCII bytes, spaces, controls and unsafe characters percent-encoded (the cache key
    /// stays the caller's string), or the error a user should see.
    static func validate(_ raw: String) -> Result<String, DWWebImageError> {
        let trimmed = Substring(raw).trimmedWhitespace()
        guard !trimmed.isEmpty else { return .failure(.emptyURL()) }
        var ascii = ""
        ascii.reserveCapacity(trimmed.utf8.count)
        for byte in trimmed.utf8 {
            switch byte {
            case 0x21...0x7E where !"\"<>\\^`{|}".utf8.contains(byte):
                ascii.append(Character(Unicode.Scalar(byte)))
            default:
                ascii += String(format: "%%%02X", byte)
            }
        }
        guard let components = URLComponents(string: ascii) else {
            return .failure(.invalidURL(raw, "malformed"))
        }
        guard let scheme = components.scheme?.lowercased() else {
            return .failure(.invalidURL(raw, "no scheme (expected http:// or https://)"))
        }
        guard scheme == "http" || scheme == "https" else {
            return .failure(.invalidURL(raw, "scheme \"\(scheme)\" is not http or https"))
        }
        guard let host = components.host, !host.isEmpty else {
            return .failure(.invalidURL(raw, "no host"))
        }
        if let port = components.port, !(1...65535).contains(port) {
            return .failure(.invalidURL(raw, "port \(port) out of range"))
        }
        return .success(ascii)
    }
}
