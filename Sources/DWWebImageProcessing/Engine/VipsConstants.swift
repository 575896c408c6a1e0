// libvips' enum values by name: the C shims take plain ints (no policy lives in C); the engine names them here.

/// `VipsInterpretation`: the colour spaces the engine converts between.
enum VipsInterpretation {
    /// `B_W`: 8-bit grey.
    static let bw: Int32 = 1
    static let lch: Int32 = 19
    static let sRGB: Int32 = 22
    static let rgb16: Int32 = 25
    static let grey16: Int32 = 26
}

/// `VipsBandFormat`: the sample types the engine casts to.
enum VipsBandFormat {
    static let uchar: Int32 = 0
    static let ushort: Int32 = 2
}

/// `VipsSize`: which way a thumbnail may scale.
enum VipsSize {
    static let both: Int32 = 0
    static let up: Int32 = 1
    static let down: Int32 = 2
    static let force: Int32 = 3
}

/// `VipsInteresting`: how a thumbnail that fills its box is cropped.
enum VipsInteresting {
    static let none: Int32 = 0
    static let centre: Int32 = 1
}
