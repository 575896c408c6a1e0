// SampleImages from a pixel function: test pictures whose every pixel a test knows (quadrants, borders, stripes).
import Foundation

extension SampleImages {
    /// An RGBA PNG whose pixel at (x, y) is `pixel(x, y)` = (r, g, b, a).
    public static func png(width: Int, height: Int, pixel: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) -> Data {
        var raw = [UInt8]()
        raw.reserveCapacity((width * 4 + 1) * height)
        for y in 0..<height {
            raw.append(0)  // filter: none
            for x in 0..<width {
                let (r, g, b, a) = pixel(x, y)
                raw += [r, g, b, a]
            }
        }
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        out += pngChunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 6, 0, 0, 0])
        out += pngChunk("IDAT", zlibStored(raw))
        out += pngChunk("IEND", [])
        return out
    }

    /// A width × height PNG in four opaque quadrants: red top-left, green top-right, blue bottom-left, yellow
    /// bottom-right.
    public static func quadrants(width: Int, height: Int) -> Data {
        png(width: width, height: height) { x, y in
            switch (x < width / 2, y < height / 2) {
            case (true, true): (255, 0, 0, 255)
            case (false, true): (0, 255, 0, 255)
            case (true, false): (0, 0, 255, 255)
            case (false, false): (255, 255, 0, 255)
            }
        }
    }
}
