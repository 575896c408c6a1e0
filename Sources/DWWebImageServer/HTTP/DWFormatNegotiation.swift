// Output format choice from the request's Accept header: imgproxy's IMGPROXY_AUTO_* and IMGPROXY_ENFORCE_*, reduced
// to a bucket of a few values (never the raw Accept) so the cache holds at most one variant per bucket.
import DWWebImage

/// What `--auto-webp`/`--auto-avif`/`--auto-jxl` (`--auto-format`: WebP and AVIF) and `--enforce-*` let the
/// `Accept` header decide. A plain value.
public struct DWAcceptFormats: Sendable, Hashable {
    /// Formats an `Accept` that allows them gets when the URL names no format (imgproxy's `IMGPROXY_AUTO_*`).
    public var auto: Set<DWImageFormat> = []
    /// Formats an `Accept` that allows them gets even over the URL's format (imgproxy's `IMGPROXY_ENFORCE_*`; an
    /// enforced format is also preferred, as in imgproxy).
    public var enforce: Set<DWImageFormat> = []

    /// None: `Accept` decides nothing.
    public init() {}

    /// imgproxy's order (v3.31 `ProcessImage`, v4 `determineOutputFormat`): JPEG XL, then AVIF, then WebP.
    public static let order: [DWImageFormat] = [.jxl, .avif, .webp]

    /// Whether any format is set.
    public var isEmpty: Bool { auto.isEmpty && enforce.isEmpty }

    /// The bucket of an `Accept` header (nil: none sent).
    func bucket(accept: String?) -> DWAcceptBucket {
        guard let accept, !isEmpty else { return DWAcceptBucket() }
        let accepted = DWFormatNegotiation.acceptedTypes(accept)
        var bucket = DWAcceptBucket()
        for format in Self.order where accepted.contains(format.mimeType ?? "") {
            if auto.contains(format) || enforce.contains(format) { bucket.preferred.append(format) }
            if enforce.contains(format) { bucket.enforced.append(format) }
        }
        return bucket
    }

    /// Whether the answer for a URL naming `explicit` (nil: none) may depend on `Accept` (`Vary: Accept`).
    func varies(explicit: DWImageFormat?) -> Bool {
        guard let explicit else { return !isEmpty }
        return enforce.contains { $0 != explicit }
    }
}

/// The formats one request's `Accept` allows among those the server lets it pick, each in imgproxy's order: tried
/// first, before the preferred formats, when the URL names no format (``preferred``), and over the URL's format
/// (``enforced``). JPEG XL and AVIF only for a still result (``DWPreferredFormats/negotiated(_:for:)``).
struct DWAcceptBucket: Sendable, Hashable {
    var preferred: [DWImageFormat] = []
    var enforced: [DWImageFormat] = []

    /// `avif,webp` or `-`, and `!avif` for the enforced ones: a cache key part.
    var description: String {
        preferred.isEmpty
            ? "-"
            : preferred.map { enforced.contains($0) ? "!\($0.rawValue)" : $0.rawValue }
                .joined(separator: ",")
    }
}

enum DWFormatNegotiation {
    /// Media types of an Accept header whose q is not 0 (lower-cased, parameters dropped).
    static func acceptedTypes(_ accept: String) -> Set<String> {
        var types = Set<String>()
        for item in accept.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first, !type.isEmpty else { continue }
            let refused = parts.dropFirst().contains { parameter in
                parameter.hasPrefix("q=") && (Double(parameter.dropFirst(2)) ?? 1) <= 0
            }
            if !refused { types.insert(type) }
        }
        return types
    }
}

extension DWServeConfiguration {
    /// The formats `Accept` may pick: `--auto-*`/`--enforce-*` (``DWImgproxySettings/acceptFormats``), and WebP and
    /// AVIF with ``autoFormat`` (`--auto-format`: imgproxy's `IMGPROXY_AUTO_WEBP` and `IMGPROXY_AUTO_AVIF` together).
    var acceptFormats: DWAcceptFormats {
        var formats = imgproxy.acceptFormats
        if autoFormat { formats.auto.formUnion([.webp, .avif]) }
        return formats
    }
}
