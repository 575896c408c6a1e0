// ThumborPixels: thumbor's C filter extensions (_sharpen, _noise, _curve) on interleaved 8-bit RGB(A) bytes, with
// their arithmetic (float where thumbor's C uses float) so the bytes match thumbor's.
import Foundation

/// Pure functions on RGB(A) bytes (`stride` 3 or 4, R G B first). Run on the caller's thread.
enum ThumborPixels {
    /// thumbor's wavelet sharpen (Marco Rossini's GIMP plugin as thumbor copies it): per channel in 0…1, five
    /// levels of the à-trous hat transform, each level's detail scaled; luminance only: on Y of YCbCr. One channel
    /// at a time in three float planes (12 bytes a pixel; thumbor's C holds five), Cb and Cr recomputed from the
    /// bytes with the same float steps.
    static func sharpen(
        _ pixels: inout [UInt8], width: Int, height: Int, stride: Int, amount: Double,
        radius: Double, luminanceOnly: Bool
    ) {
        let area = width * height
        func rgb(_ i: Int) -> (Float, Float, Float) {
            (Float(pixels[i * stride]), Float(pixels[i * stride + 1]), Float(pixels[i * stride + 2]))
        }
        func byte(_ value: Float) -> UInt8 { value > 255 ? 255 : value < 0 ? 0 : UInt8(value) }  // C's truncation
        var planes = [[Float]](repeating: [Float](repeating: 0, count: area), count: 3)
        for c in 0..<(luminanceOnly ? 1 : 3) {
            for i in 0..<area {
                let p = luminanceOnly ? toYCbCr(rgb(i)) : rgb(i)
                planes[0][i] = (c == 0 ? p.0 : c == 1 ? p.1 : p.2) / 255
            }
            waveletSharpen(&planes, width: width, height: height, amount: amount, radius: radius)
            for i in 0..<area {
                if luminanceOnly {
                    let p = toYCbCr(rgb(i))
                    let out = toRGB((planes[0][i] * 255, p.1 / 255 * 255, p.2 / 255 * 255))
                    (pixels[i * stride], pixels[i * stride + 1], pixels[i * stride + 2]) = (
                        byte(out.0), byte(out.1), byte(out.2)
                    )
                } else {
                    pixels[i * stride + c] = byte(planes[0][i] * 255)
                }
            }
        }
    }

    private static func toYCbCr(_ p: (Float, Float, Float)) -> (Float, Float, Float) {
        let y: Float = 0.2990 * p.0 + 0.5870 * p.1 + 0.1140 * p.2
        let cb: Float = -0.1687 * p.0 - 0.3313 * p.1 + 0.5000 * p.2 + 128
        let cr: Float = 0.5000 * p.0 - 0.4187 * p.1 - 0.0813 * p.2 + 128
        return (y, cb, cr)
    }

    private static func toRGB(_ p: (Float, Float, Float)) -> (Float, Float, Float) {
        let r: Float = p.0 + 1.40200 * (p.2 - 128)
        let g: Float = p.0 - 0.34414 * (p.1 - 128) - 0.71414 * (p.2 - 128)
        let b: Float = p.0 + 1.77200 * (p.1 - 128)
        return (r, g, b)
    }

    /// One channel sharpened in place: `planes[0]` is level 0; the other two hold the low passes.
    private static func waveletSharpen(
        _ planes: inout [[Float]], width: Int, height: Int, amount: Double,
        radius: Double
    ) {
        let size = width * height
        var temp = [Float](repeating: 0, count: max(width, height))
        var hpass = 0, lpass = 0
        for level in 0..<5 {
            lpass = (level & 1) + 1
            let scale = 1 << level
            for row in 0..<height {
                hat(&temp, planes[hpass], start: row * width, step: 1, size: width, scale: scale)
                for col in 0..<width { planes[lpass][row * width + col] = temp[col] * 0.25 }
            }
            for col in 0..<width {
                hat(&temp, planes[lpass], start: col, step: width, size: height, scale: scale)
                for row in 0..<height { planes[lpass][row * width + col] = temp[row] * 0.25 }
            }
            let d = Double(level) - radius
            let amt = Float(amount * exp(-d * d / 1.5) + 1)
            for i in 0..<size {
                planes[hpass][i] -= planes[lpass][i]
                planes[hpass][i] *= amt
                if hpass != 0 { planes[0][i] += planes[hpass][i] }
            }
            hpass = lpass
        }
        for i in 0..<size { planes[0][i] += planes[lpass][i] }
    }

    /// The hat transform of one row or column, edges mirrored (indices beyond a side too small for the level are
    /// held inside it, where thumbor's C reads out of bounds).
    private static func hat(_ temp: inout [Float], _ base: [Float], start: Int, step: Int, size: Int, scale sc: Int) {
        func at(_ index: Int) -> Float { base[start + step * min(max(index, 0), size - 1)] }
        var i = 0
        while i < sc, i < size {
            temp[i] = 2 * at(i) + at(sc - i) + at(i + sc)
            i += 1
        }
        while i + sc < size {
            temp[i] = 2 * at(i) + at(i - sc) + at(i + sc)
            i += 1
        }
        while i < size {
            temp[i] = 2 * at(i) + at(i - sc) + at(2 * size - 2 - (i + sc))
            i += 1
        }
    }

    /// thumbor's noise: per pixel `random() % amount − amount / 2` added to R, G and B, clipped.
    static func noise(_ pixels: inout [UInt8], stride: Int, amount: Int, seed: Int) {
        guard amount > 0 else { return }
        var random = GlibcRandom(seed: UInt32(truncatingIfNeeded: seed))
        var i = 0
        while i + stride <= pixels.count {
            let offset = Int(random.next()) % amount - (amount >> 1)
            for c in 0..<3 { pixels[i + c] = UInt8(min(255, max(0, Int(pixels[i + c]) + offset))) }
            i += stride
        }
    }

    /// thumbor's curve: R, G and B each through its own table, then through `all`'s.
    static func curve(_ pixels: inout [UInt8], stride: Int, all: [Int], red: [Int], green: [Int], blue: [Int]) {
        let a = table(all), tables = [table(red), table(green), table(blue)]
        var i = 0
        while i + stride <= pixels.count {
            for c in 0..<3 { pixels[i + c] = a[Int(tables[c][Int(pixels[i + c])])] }
            i += stride
        }
    }

    /// The 256-entry table of a curve's points (`x0, y0, x1, y1, …`, x strictly increasing): thumbor's natural
    /// cubic spline between the points, its first y before them and its last y from the last point on.
    static func table(_ flat: [Int]) -> [UInt8] {
        let n = flat.count / 2
        guard n > 0 else { return (0...255).map { UInt8($0) } }
        let xs = (0..<n).map { Double(flat[2 * $0]) }, ys = (0..<n).map { Double(flat[2 * $0 + 1]) }
        let sd = secondDerivatives(xs, ys)
        var items = [UInt8](repeating: UInt8(flat[1]), count: 256)
        for i in 0..<(n - 1) {
            let (x0, y0, x1, y1) = (flat[2 * i], ys[i], flat[2 * i + 2], ys[i + 1])
            let h = Double(x1 - x0)
            for x in x0..<x1 {
                let t = Double(x - x0) / h, a = 1 - t, b = t
                let y = a * y0 + b * y1 + (h * h / 6) * ((a * a * a - a) * sd[i] + (b * b * b - b) * sd[i + 1])
                items[x] = UInt8(min(255, max(0, y.rounded())))
            }
        }
        for x in flat[2 * n - 2]..<256 { items[x] = UInt8(flat[2 * n - 1]) }
        return items
    }

    /// The spline's second derivatives (thumbor's tridiagonal solve, ends natural).
    private static func secondDerivatives(_ x: [Double], _ y: [Double]) -> [Double] {
        let n = x.count
        var m = [[Double]](repeating: [0, 0, 0], count: n), r = [Double](repeating: 0, count: n)
        m[0][1] = 1
        for i in 1..<max(1, n - 1) {
            m[i] = [(x[i] - x[i - 1]) / 6, (x[i + 1] - x[i - 1]) / 3, (x[i + 1] - x[i]) / 6]
            r[i] = (y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1])
        }
        m[n - 1][1] = 1
        for i in 1..<max(1, n) {
            let k = m[i][0] / m[i - 1][1]
            m[i][1] -= k * m[i - 1][2]
            m[i][0] = 0
            r[i] -= k * r[i - 1]
        }
        for i in stride(from: n - 2, through: 0, by: -1) {
            let k = m[i][2] / m[i + 1][1]
            m[i][1] -= k * m[i + 1][0]
            m[i][2] = 0
            r[i] -= k * r[i + 1]
        }
        return (0..<n).map { r[$0] / m[$0][1] }
    }
}

/// glibc's `random()` after `srandom(seed)` (its TYPE_3 additive feedback generator, degree 31), reproduced so a
/// seeded `noise()` gives thumbor's bytes without the process-wide generator. A plain value.
struct GlibcRandom {
    private var table: [UInt32]
    private var front = 3, rear = 0

    init(seed: UInt32) {
        var r = [Int32](repeating: 0, count: 31)
        r[0] = Int32(bitPattern: seed == 0 ? 1 : seed)
        for i in 1..<31 {
            let hi = r[i - 1] / 127_773, lo = r[i - 1] % 127_773
            var word = 16_807 * lo - 2_836 * hi
            if word < 0 { word += 2_147_483_647 }
            r[i] = word
        }
        table = r.map { UInt32(bitPattern: $0) }
        for _ in 0..<310 { _ = next() }
    }

    /// The next value, 0…2³¹−1.
    mutating func next() -> UInt32 {
        table[front] = table[front] &+ table[rear]
        let result = table[front] >> 1
        front = (front + 1) % 31
        rear = (rear + 1) % 31
        return result
    }
}
