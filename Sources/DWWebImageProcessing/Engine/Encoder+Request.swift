// Encoder+Request: what a conversion may ask of the encoder, checked once for the processors and the plan alike.
import DWWebImage

extension Encoder {
    /// Throws 10000 for an output format this engine does not write (``DWImageFormat/isConversionWritable``) or a
    /// quality outside 1…100.
    static func checkRequest(format: DWImageFormat?, quality: Int?) throws(DWWebImageError) {
        if let format, !format.isConversionWritable {
            let names = DWImageFormat.allCases.filter(\.isConversionWritable).map(\.rawValue)
            let list = names.dropLast().joined(separator: ", ") + (names.count > 1 ? " or " : "") + (names.last ?? "")
            throw DWWebImageError(.notAnImage, "cannot convert to \(format.rawValue) (\(list))")
        }
        if let quality, !(1...100).contains(quality) {
            throw DWWebImageError(.notAnImage, "quality must be 1…100 (got \(quality))")
        }
    }
}
