// DWImageOriginal: what a rendered variant was made from.
/// The format and pixel size of the original a variant was rendered from (``DWImage/original``). A plain value.
public struct DWImageOriginal: Sendable, Equatable {
    public let format: DWImageFormat
    public let pixelWidth: Int
    public let pixelHeight: Int
}
