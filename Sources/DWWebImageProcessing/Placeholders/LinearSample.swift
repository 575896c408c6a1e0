// LinearSample: a small linear-light copy of a bitmap, the input of BlurHash and the dominant colours.
import DWWebImage
import Foundation

/// A bitmap shrunk by area averaging (box filter, in linear light) to at most `maxSide` pixels a side, as linear
/// RGB floats plus alpha. Placeholders need the image's colours, not its pixels: 64 × 64 samples cost the same for
/// a 40-megapixel photo as for an icon, once it is decoded.
struct LinearSample {
    let width: Int
    let height: Int
    /// Linear-light red, green, blue (0…1) and alpha (0…1) per sample, rows top first.
    var red: [Float], green: [Float], blue: [Float], alpha: [Float]

    init(_ bitmap: DWBitmap, maxSide: Int = 64) {
        let scale = max(1, Double(max(bitmap.width, bitmap.height)) / Double(maxSide))
        width = max(1, Int((Double(bitmap.width) / scale).rounded()))
        height = max(1, Int((Double(bitmap.height) / scale).rounded()))
        let count = width * height
        red = [Float](repeating: 0, count: count)
        green = red; blue = red; alpha = red
        var weight = [Float](repeating: 0, count: count)
        let toLinear = (0...255).map { Float(sRGBToLinear($0)) }
        bitmap.pixels.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            for y in 0..<bitmap.height {
                let sy = min(height - 1, y * height / bitmap.height)
                let row = y * bitmap.bytesPerRow
                for x in 0..<bitmap.width {
                    let s = sy * width + min(width - 1, x * width / bitmap.width)
                    let p = row + x * 4
                    red[s] += toLinear[Int(bytes[p])]
                    green[s] += toLinear[Int(bytes[p + 1])]
                    blue[s] += toLinear[Int(bytes[p + 2])]
                    alpha[s] += Float(bytes[p + 3]) / 255
                    weight[s] += 1
                }
            }
        }
        for i in 0..<count where weight[i] > 0 {
            red[i] /= weight[i]; green[i] /= weight[i]; blue[i] /= weight[i]; alpha[i] /= weight[i]
        }
    }
}

/// sRGB byte → linear light (0…1), the sRGB transfer function.
func sRGBToLinear(_ value: Int) -> Double {
    let v = Double(value) / 255
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
}

/// Linear light → sRGB byte, clamped and rounded as BlurHash's reference does.
func linearToSRGB(_ value: Double) -> Int {
    let v = max(0, min(1, value))
    return v <= 0.0031308 ? Int(v * 12.92 * 255 + 0.5) : Int((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
}
