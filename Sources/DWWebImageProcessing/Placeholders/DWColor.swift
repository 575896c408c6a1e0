// DWColor / DWDominantColor: sRGB colours for placeholders and /info.
import Foundation

/// An opaque sRGB colour, 8 bits a channel.
public struct DWColor: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0…255.
    public var red: UInt8
    /// Green, 0…255.
    public var green: UInt8
    /// Blue, 0…255.
    public var blue: UInt8

    /// A colour from its channels.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `"#rrggbb"`, lower case (CSS).
    public var hex: String { String(format: "#%02x%02x%02x", red, green, blue) }
    /// ``hex``.
    public var description: String { hex }
}

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
