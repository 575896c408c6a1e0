// BlurHash: Wolt's compact placeholder string (woltapp/blurhash), encoded from linear-light samples.
import Foundation

/// The BlurHash encoder, as the reference implementation (woltapp/blurhash, TypeScript and C) computes it: a DC
/// term and `x × y − 1` AC terms of a cosine transform over linear-light RGB, quantised into base-83 digits.
/// Alpha is ignored, as the reference does.
enum BlurHash {
    static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    /// The hash of `sample` with `x` × `y` components (each 1…9).
    static func encode(_ sample: LinearSample, x componentsX: Int, y componentsY: Int) -> String {
        var factors: [(Double, Double, Double)] = []
        let (w, h) = (sample.width, sample.height)
        // Basis values per axis, computed once: cos(π·i·x / w).
        func basis(_ component: Int, _ size: Int) -> [Double] {
            (0..<size).map { cos(Double.pi * Double(component) * Double($0) / Double(size)) }
        }
        for cy in 0..<componentsY {
            let by = basis(cy, h)
            for cx in 0..<componentsX {
                let bx = basis(cx, w)
                let normalisation: Double = cx == 0 && cy == 0 ? 1 : 2
                var (r, g, b) = (0.0, 0.0, 0.0)
                for py in 0..<h {
                    for px in 0..<w {
                        let weight = normalisation * bx[px] * by[py]
                        let i = py * w + px
                        r += weight * Double(sample.red[i])
                        g += weight * Double(sample.green[i])
                        b += weight * Double(sample.blue[i])
                    }
                }
                let scale = 1 / Double(w * h)
                factors.append((r * scale, g * scale, b * scale))
            }
        }
        var hash = encode83((componentsX - 1) + (componentsY - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        var maximumValue = 1.0
        if ac.isEmpty {
            hash += encode83(0, length: 1)
        } else {
            let actualMaximum = ac.map { max(abs($0.0), abs($0.1), abs($0.2)) }.max() ?? 0
            let quantised = Int(max(0, min(82, (actualMaximum * 166 - 0.5).rounded(.down))))
            maximumValue = Double(quantised + 1) / 166
            hash += encode83(quantised, length: 1)
        }
        let dc = factors[0]
        hash += encode83((linearToSRGB(dc.0) << 16) + (linearToSRGB(dc.1) << 8) + linearToSRGB(dc.2), length: 4)
        for factor in ac {
            func quantise(_ value: Double) -> Int {
                let v = signPow(value / maximumValue, 0.5) * 9 + 9.5
                return Int(max(0, min(18, v.rounded(.down))))
            }
            hash += encode83(quantise(factor.0) * 19 * 19 + quantise(factor.1) * 19 + quantise(factor.2), length: 2)
        }
        return hash
    }

    static func encode83(_ value: Int, length: Int) -> String {
        var result = ""
        var divisor = 1
        for _ in 1..<max(1, length) { divisor *= 83 }
        for _ in 0..<length {
            result.append(digits[(value / divisor) % 83])
            divisor /= 83
        }
        return result
    }

    static func signPow(_ value: Double, _ exponent: Double) -> Double {
        (value < 0 ? -1 : 1) * pow(abs(value), exponent)
    }
}
