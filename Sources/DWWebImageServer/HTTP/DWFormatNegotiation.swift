// Output format choice: the URL's format, else (with --auto-format) a bucket of the request's Accept header.
import DWWebImage

/// Picks the output format of a request. The result is one of a few buckets (never the raw Accept), so the cache
/// holds at most one variant per bucket.
enum DWFormatNegotiation {
    /// The format to convert to, or nil to keep the source's.
    static func outputFormat(explicit: DWImageFormat?, accept: String?, autoFormat: Bool) -> DWImageFormat? {
        if let explicit { return explicit }
        guard autoFormat, let accept else { return nil }
        let accepted = acceptedTypes(accept)
        if accepted.contains("image/webp") { return .webp }
        if accepted.contains("image/avif") { return .avif }
        return nil
    }

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
