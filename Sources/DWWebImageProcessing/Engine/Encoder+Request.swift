// Encoder+Request: what a conversion may ask of the encoder, checked once for the processors and the plan alike.
import DWWebImage

extension Encoder {
    /// The formats this engine writes: the libvips savers' (``DWImageFormat/isWritable``), BMP and ICO (written
    /// here), and any registered encoder's.
    static func writes(_ format: DWImageFormat) -> Bool { format.isWritable || writesDIB(format) }

    /// Throws 10000 for an output format this engine does not write or a quality outside 1…100.
    static func checkRequest(format: DWImageFormat?, quality: Int?) throws(DWWebImageError) {
        if let format, !writes(format) {
            let names = DWImageFormat.allCases.filter(writes).map(\.rawValue)
            let list = names.dropLast().joined(separator: ", ") + (names.count > 1 ? " or " : "") + (names.last ?? "")
            throw DWWebImageError(.notAnImage, "cannot convert to \(format.rawValue) (\(list))")
        }
        if let quality, !(1...100).contains(quality) {
            throw DWWebImageError(.notAnImage, "quality must be 1…100 (got \(quality))")
        }
    }
}
