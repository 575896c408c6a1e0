// DWDominantColor: a colour for placeholders and /info (DWColor itself is in DWImageTransform, beside DWTransform).
import DWWebImage
import Foundation

/// One of an image's dominant colours and how much of the image it covers.
public struct DWDominantColor: Sendable, Hashable {
    /// The colour (the mean, in linear light, of the pixels it stands for).
    public var color: DWColor
    /// The share of the image's visible pixels (alpha-weighted) it stands for, 0…1.
    public var fraction: Double

    /// A colour and its share.
    public init(color: DWColor, fraction: Double) {
        self.color = color
        self.fraction = fraction
    }
}
