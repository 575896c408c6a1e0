// DWDataURLLoader: data: URLs (RFC 2397), base64 or percent-encoded (a built-in DWImageLoader).
import Foundation

/// Loads `data:[<media type>][;base64],<data>` URLs: base64 (whitespace ignored, percent-escapes decoded first, as
/// browsers do) or percent-encoded bytes. The media type is not trusted (the bytes are sniffed like any body).
/// A malformed URL or payload is 10002.
public struct DWDataURLLoader: DWImageLoader {
    /// A `data:` URL loader.
    public init() {}

    /// URLs starting with `data:` (any case).
    public func canLoad(_ url: String) -> Bool {
        url.hasASCIIPrefixIgnoringCase("data:")
    }

    /// Decodes the payload into `body`.
    public func load(_ url: String, into body: DWImageLoaderBody) async throws {
        let bytes = try Self.decode(url)
        body.expect(length: Int64(bytes.count))
        try body.append(bytes)
    }

    /// The bytes a `data:` URL carries.
    static func decode(_ url: String) throws(DWWebImageError) -> Data {
        let utf8 = Array(url.utf8)
        guard utf8.count >= 5, let comma = utf8.firstIndex(of: UInt8(ascii: ",")) else {
            throw .invalidURL(String(url.prefix(64)), "data URL without a comma")
        }
        let header = String(decoding: utf8[5..<comma], as: UTF8.self).lowercased()
        let payload = PercentEncoding.decode(utf8[(comma + 1)...], lenient: true) ?? []
        guard header.split(separator: ";").last?.trimmingCharacters(in: .whitespaces) == "base64" else {
            return Data(payload)
        }
        let text = String(decoding: payload.filter { !$0.isASCIISpace }, as: UTF8.self)
        var padded = text
        if padded.count % 4 != 0 { padded += String(repeating: "=", count: 4 - padded.count % 4) }
        guard let data = Data(base64Encoded: padded) ?? Data(base64Encoded: Self.standardAlphabet(padded)) else {
            throw .invalidURL(String(url.prefix(64)), "data URL's base64 does not decode")
        }
        return data
    }

    /// base64url's `-` and `_` as base64's `+` and `/`.
    private static func standardAlphabet(_ text: String) -> String {
        text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    }
}
