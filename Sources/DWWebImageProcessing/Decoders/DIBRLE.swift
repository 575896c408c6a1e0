// DIBRLE: BMP's run-length encodings (RLE8, RLE4) expanded to uncompressed bottom-up rows.
import DWWebImage
import Foundation

/// Expands `BI_RLE8` / `BI_RLE4` pixel data into the uncompressed layout (`rowBytes` a row, bottom row first),
/// so the one pixel loop reads every BMP. Encoded runs `(count, index)`; escapes `0 0` end of line, `0 1` end of
/// bitmap, `0 2 dx dy` move, `0 n` n literal indices padded to 16 bits. Pixels never written (a move, an early end)
/// keep index 0, as Pillow fills them; runs past a row's end are clipped, bytes past the data end the bitmap.
/// Every read is bounds-checked.
enum DIBRLE {
    static func expand(
        _ bytes: [UInt8], from start: Int, width: Int, height: Int, bpp: Int,
        rowBytes: Int
    ) throws(DWWebImageError) -> [UInt8] {
        guard start >= 0, start <= bytes.count else {
            throw .malformed("BMP", "RLE data outside the file")
        }
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        var (x, y, i) = (0, 0, start)
        func put(_ index: UInt8) {
            guard x < width, y < height else { return }
            if bpp == 8 {
                out[y * rowBytes + x] = index
            } else {
                let at = y * rowBytes + x / 2
                out[at] |= x % 2 == 0 ? (index & 0x0F) << 4 : index & 0x0F
            }
            x += 1
        }
        while i + 1 < bytes.count, y < height {
            let (count, value) = (Int(bytes[i]), bytes[i + 1])
            i += 2
            if count > 0 {
                for k in 0..<count { put(bpp == 8 ? value : (k % 2 == 0 ? value >> 4 : value & 0x0F)) }
                continue
            }
            switch value {
            case 0: (x, y) = (0, y + 1)
            case 1: return out
            case 2:
                guard i + 1 < bytes.count else { return out }
                (x, y) = (x + Int(bytes[i]), y + Int(bytes[i + 1]))
                i += 2
            default:
                let n = Int(value)
                let length = bpp == 8 ? n : (n + 1) / 2
                guard i + length <= bytes.count else { return out }
                for k in 0..<n {
                    let byte = bytes[i + (bpp == 8 ? k : k / 2)]
                    put(bpp == 8 ? byte : (k % 2 == 0 ? byte >> 4 : byte & 0x0F))
                }
                i += length + length % 2  // literal runs are padded to 16 bits
            }
        }
        return out
    }
}
