// ThumbHash: evanw/thumbhash's encoder (the JavaScript reference, ported number for number), a placeholder that keeps
// the aspect ratio and alpha in ~25 bytes.
import DWWebImage
import Foundation

/// The ThumbHash of an RGBA image of at most 100 × 100 pixels, byte for byte what the reference's `rgbaToThumbHash`
/// returns (its `Math.round` is half-up, as here). Pure; any thread.
enum ThumbHash {
    /// The hash of `width` × `height` straight-alpha RGBA bytes (`bytesPerRow` apart), each side 1…100.
    static func encode(width w: Int, height h: Int, bytesPerRow: Int, rgba: [UInt8]) -> [UInt8] {
        precondition((1...100).contains(w) && (1...100).contains(h), "ThumbHash needs at most 100 × 100 pixels")
        func pixel(_ i: Int, _ c: Int) -> Double { Double(rgba[(i / w) * bytesPerRow + (i % w) * 4 + c]) }
        var (avgR, avgG, avgB, avgA) = (0.0, 0.0, 0.0, 0.0)
        for i in 0..<(w * h) {
            let alpha = pixel(i, 3) / 255
            avgR += alpha / 255 * pixel(i, 0)
            avgG += alpha / 255 * pixel(i, 1)
            avgB += alpha / 255 * pixel(i, 2)
            avgA += alpha
        }
        if avgA > 0 { (avgR, avgG, avgB) = (avgR / avgA, avgG / avgA, avgB / avgA) }
        let hasAlpha = avgA < Double(w * h)
        let limit = Double(hasAlpha ? 5 : 7)
        let lx = max(1, round(limit * Double(w) / Double(max(w, h))))
        let ly = max(1, round(limit * Double(h) / Double(max(w, h))))
        var l: [Double] = [], p: [Double] = [], q: [Double] = [], a: [Double] = []
        for i in 0..<(w * h) {  // composited atop the average colour
            let alpha = pixel(i, 3) / 255
            let r = avgR * (1 - alpha) + alpha / 255 * pixel(i, 0)
            let g = avgG * (1 - alpha) + alpha / 255 * pixel(i, 1)
            let b = avgB * (1 - alpha) + alpha / 255 * pixel(i, 2)
            l.append((r + g + b) / 3)
            p.append((r + g) / 2 - b)
            q.append(r - g)
            a.append(alpha)
        }
        let (lDC, lAC, lScale) = channel(l, nx: max(3, lx), ny: max(3, ly), w: w, h: h)
        let (pDC, pAC, pScale) = channel(p, nx: 3, ny: 3, w: w, h: h)
        let (qDC, qAC, qScale) = channel(q, nx: 3, ny: 3, w: w, h: h)
        let (aDC, aAC, aScale) = hasAlpha ? channel(a, nx: 5, ny: 5, w: w, h: h) : (1, [], 1)
        let landscape = w > h
        let header24 =
            round(63 * lDC) | (round(31.5 + 31.5 * pDC) << 6) | (round(31.5 + 31.5 * qDC) << 12)
            | (round(31 * lScale) << 18) | ((hasAlpha ? 1 : 0) << 23)
        let header16 =
            (landscape ? ly : lx) | (round(63 * pScale) << 3) | (round(63 * qScale) << 9)
            | ((landscape ? 1 : 0) << 15)
        var hash = [header24 & 255, (header24 >> 8) & 255, header24 >> 16, header16 & 255, header16 >> 8].map(
            UInt8.init)
        if hasAlpha { hash.append(UInt8(round(15 * aDC) | (round(15 * aScale) << 4))) }
        let start = hash.count
        for (index, f) in (lAC + pAC + qAC + aAC).enumerated() {
            if start + index / 2 == hash.count { hash.append(0) }
            hash[start + index / 2] |= UInt8(round(15 * f) << ((index & 1) << 2))
        }
        return hash
    }

    /// JavaScript's `Math.round`: halves go up.
    private static func round(_ value: Double) -> Int { Int((value + 0.5).rounded(.down)) }

    /// The DC term, the AC terms normalised to 0…1, and their scale, as the reference's `encodeChannel`.
    private static func channel(_ values: [Double], nx: Int, ny: Int, w: Int, h: Int) -> (Double, [Double], Double) {
        var dc = 0.0, ac: [Double] = [], scale = 0.0
        var fx = [Double](repeating: 0, count: w)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                var f = 0.0
                for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                for y in 0..<h {
                    let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<w { f += values[x + y * w] * fx[x] * fy }
                }
                f /= Double(w * h)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
        return (dc, ac, scale)
    }
}

extension DWImage {
    /// The first frame's ThumbHash (evanw/thumbhash): its exact bytes for an image of at most 100 × 100 pixels;
    /// a larger one is box-averaged (in sRGB, straight alpha, as a browser canvas scales) to fit 100 × 100 first.
    /// Runs on the caller's thread.
    /// - Throws: 10000 when the image does not decode; 10005 over the limits.
    public func thumbHash() throws(DWWebImageError) -> Data {
        let bitmap = try bitmap()
        let scale = max(1, Double(max(bitmap.width, bitmap.height)) / 100)
        let w = max(1, min(100, Int((Double(bitmap.width) / scale).rounded())))
        let h = max(1, min(100, Int((Double(bitmap.height) / scale).rounded())))
        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        bitmap.pixels.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            if w == bitmap.width && h == bitmap.height {
                for y in 0..<h { for x in 0..<(w * 4) { rgba[y * w * 4 + x] = bytes[y * bitmap.bytesPerRow + x] } }
                return
            }
            var sums = [Int](repeating: 0, count: w * h * 4), counts = [Int](repeating: 0, count: w * h)
            for y in 0..<bitmap.height {
                let ty = min(h - 1, y * h / bitmap.height)
                for x in 0..<bitmap.width {
                    let t = ty * w + min(w - 1, x * w / bitmap.width)
                    for c in 0..<4 { sums[t * 4 + c] += Int(bytes[y * bitmap.bytesPerRow + x * 4 + c]) }
                    counts[t] += 1
                }
            }
            for t in 0..<(w * h) where counts[t] > 0 {
                for c in 0..<4 { rgba[t * 4 + c] = UInt8((sums[t * 4 + c] + counts[t] / 2) / counts[t]) }
            }
        }
        return Data(ThumbHash.encode(width: w, height: h, bytesPerRow: w * 4, rgba: rgba))
    }
}
