// GIFFixtures: a small GIF encoder for tests (every field under control: rects, colour maps, interlace, GCB,
// NETSCAPE2.0, LZW code size) and the fixture set that GIFDecoderTests checks against Pillow and by hand.
import DWTestServer
import Foundation

typealias RGB = (r: UInt8, g: UInt8, b: UInt8)

/// Builds GIF files byte by byte.
struct GIFBuilder {
    struct Frame {
        var left = 0, top = 0, width: Int, height: Int
        /// Colour indices, row-major (`width × height`), in display order (interlacing is applied when encoding).
        var pixels: [UInt8]
        var localPalette: [RGB]?
        var interlaced = false
        /// nil: no Graphic Control Extension.
        var delayCentiseconds: Int? = 10
        var disposal = 0
        var transparent: Int?
        /// LZW minimum code size; nil picks it from the palette size (at least 2).
        var codeSize: Int?
    }

    var width: Int
    var height: Int
    var globalPalette: [RGB]?
    var background = 0
    /// nil: no NETSCAPE2.0 block.
    var loop: Int?
    var frames: [Frame] = []

    func encode() -> Data {
        var out = Data("GIF89a".utf8)
        out += le16(width) + le16(height)
        if let globalPalette {
            out.append(0x80 | 0x70 | UInt8(paletteBits(globalPalette.count) - 1))
        } else {
            out.append(0x70)
        }
        out += [UInt8(background), 0]
        if let globalPalette { out += paletteBytes(globalPalette) }
        if let loop {
            out += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x03, 0x01] + le16(loop) + [0x00]
        }
        for frame in frames { out += encode(frame) }
        out.append(0x3B)
        return out
    }

    func encode(_ f: Frame) -> Data {
        var out = Data()
        if let delay = f.delayCentiseconds {
            let flags = UInt8((f.disposal & 7) << 2) | (f.transparent != nil ? 1 : 0)
            out += [0x21, 0xF9, 0x04, flags] + le16(delay) + [UInt8(f.transparent ?? 0), 0x00]
        }
        out += [0x2C] + le16(f.left) + le16(f.top) + le16(f.width) + le16(f.height)
        var packed: UInt8 = f.interlaced ? 0x40 : 0
        if let local = f.localPalette { packed |= 0x80 | UInt8(paletteBits(local.count) - 1) }
        out.append(packed)
        if let local = f.localPalette { out += paletteBytes(local) }
        let paletteSize = f.localPalette?.count ?? globalPalette?.count ?? 256
        let codeSize = f.codeSize ?? max(2, paletteBits(paletteSize))
        var rows: [Int] = Array(0..<f.height)
        if f.interlaced {
            rows = []
            for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
                rows += Array(stride(from: start, to: f.height, by: step))
            }
        }
        var ordered: [UInt8] = []
        for y in rows { ordered += f.pixels[y * f.width..<(y + 1) * f.width] }
        out += SampleImages.gifLZW(ordered, minCodeSize: codeSize)
        return out
    }

    private func paletteBits(_ count: Int) -> Int {
        var bits = 1
        while (1 << bits) < count { bits += 1 }
        return bits
    }

    private func paletteBytes(_ palette: [RGB]) -> [UInt8] {
        let size = 1 << paletteBits(palette.count)
        var out: [UInt8] = []
        for i in 0..<size {
            let c: RGB = i < palette.count ? palette[i] : (0, 0, 0)
            out += [c.r, c.g, c.b]
        }
        return out
    }

    private func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
}

/// The named fixtures. Each is deterministic; `GIFDecoderTests` holds Pillow's hashes of their frames.
enum GIFFixtures {
    static let palette4: [RGB] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]
    static let palette8: [RGB] = palette4 + [(255, 0, 255), (0, 255, 255), (255, 255, 255), (16, 32, 48)]

    /// A deterministic pattern of indices below `colors`.
    static func pattern(_ w: Int, _ h: Int, colors: Int, seed: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: w * h)
        var state = UInt32(truncatingIfNeeded: seed &* 2_654_435_761 &+ 1)
        for i in out.indices {
            state = state &* 1_664_525 &+ 1_013_904_223
            out[i] = UInt8(Int(state >> 24) % colors)
        }
        return out
    }

    static func solid(_ w: Int, _ h: Int, _ index: UInt8) -> [UInt8] { [UInt8](repeating: index, count: w * h) }

    /// Disposal 0 and 1 (keep): small frames drawn over a full first frame; the third has transparency.
    static var disposeKeep: Data {
        var g = GIFBuilder(width: 12, height: 10, globalPalette: palette8, loop: 0)
        g.frames.append(.init(width: 12, height: 10, pixels: pattern(12, 10, colors: 8, seed: 1), disposal: 0))
        g.frames.append(.init(left: 2, top: 3, width: 5, height: 4, pixels: solid(5, 4, 4), disposal: 1))
        g.frames.append(
            .init(
                left: 4, top: 1, width: 6, height: 6, pixels: pattern(6, 6, colors: 8, seed: 3),
                disposal: 0, transparent: 6))
        return g.encode()
    }

    /// Disposal 2 (restore to background = transparent): every frame has a transparent index, as in real
    /// animations and so that Pillow (which otherwise paints the background colour) agrees with browsers.
    static var disposeBackground: Data {
        var g = GIFBuilder(width: 10, height: 8, globalPalette: palette8, background: 3, loop: 0)
        g.frames.append(
            .init(width: 10, height: 8, pixels: pattern(10, 8, colors: 7, seed: 4), disposal: 1, transparent: 7))
        g.frames.append(
            .init(left: 1, top: 1, width: 4, height: 3, pixels: solid(4, 3, 5), disposal: 2, transparent: 7))
        g.frames.append(
            .init(
                left: 3, top: 2, width: 5, height: 5, pixels: pattern(5, 5, colors: 8, seed: 6),
                disposal: 2, transparent: 7))
        g.frames.append(
            .init(left: 0, top: 6, width: 2, height: 2, pixels: solid(2, 2, 0), disposal: 0, transparent: 7))
        return g.encode()
    }

    /// Disposal 3 (restore to previous), including a first frame with disposal 3 and two in a row.
    static var disposePrevious: Data {
        var g = GIFBuilder(width: 9, height: 9, globalPalette: palette8, loop: 0)
        g.frames.append(.init(width: 9, height: 9, pixels: pattern(9, 9, colors: 6, seed: 7), disposal: 1))
        g.frames.append(.init(left: 2, top: 2, width: 5, height: 5, pixels: solid(5, 5, 6), disposal: 3))
        g.frames.append(
            .init(
                left: 1, top: 4, width: 4, height: 4, pixels: pattern(4, 4, colors: 8, seed: 9), disposal: 3,
                transparent: 0))
        g.frames.append(.init(left: 6, top: 0, width: 3, height: 3, pixels: solid(3, 3, 7), disposal: 1))
        return g.encode()
    }

    /// Interlaced frames, heights 11 (all four passes), 1, 2 and 3 (edge passes).
    static var interlaced: Data {
        var g = GIFBuilder(width: 7, height: 11, globalPalette: palette8, loop: 0)
        g.frames.append(.init(width: 7, height: 11, pixels: pattern(7, 11, colors: 8, seed: 11), interlaced: true))
        g.frames.append(
            .init(left: 1, top: 0, width: 5, height: 1, pixels: pattern(5, 1, colors: 8, seed: 12), interlaced: true))
        g.frames.append(
            .init(left: 0, top: 3, width: 6, height: 2, pixels: pattern(6, 2, colors: 8, seed: 13), interlaced: true))
        g.frames.append(
            .init(left: 2, top: 7, width: 4, height: 3, pixels: pattern(4, 3, colors: 8, seed: 14), interlaced: true))
        return g.encode()
    }

    /// Local colour tables (one larger than the global table, one smaller), plus a frame using the global one.
    static var localColorTables: Data {
        var g = GIFBuilder(width: 8, height: 6, globalPalette: palette4, loop: 0)
        let local16: [RGB] = (0..<16).map { (i: Int) -> RGB in
            let v = UInt8(i * 16)
            return (v, 255 - v, UInt8(i * 7))
        }
        g.frames.append(.init(width: 8, height: 6, pixels: pattern(8, 6, colors: 16, seed: 15), localPalette: local16))
        g.frames.append(
            .init(
                left: 2, top: 1, width: 4, height: 4, pixels: pattern(4, 4, colors: 2, seed: 16),
                localPalette: [(9, 9, 9), (200, 100, 50)]))
        g.frames.append(.init(left: 0, top: 0, width: 3, height: 3, pixels: pattern(3, 3, colors: 4, seed: 17)))
        return g.encode()
    }

    /// Transparency on the first frame (the canvas shows through) and on later frames.
    static var transparency: Data {
        var g = GIFBuilder(width: 8, height: 8, globalPalette: palette8, loop: 0)
        g.frames.append(.init(width: 8, height: 8, pixels: pattern(8, 8, colors: 8, seed: 18), transparent: 2))
        g.frames.append(.init(width: 8, height: 8, pixels: pattern(8, 8, colors: 8, seed: 19), transparent: 5))
        return g.encode()
    }

    /// Delays 0, 1, 2, 10 and 50 centiseconds, and a frame with no Graphic Control Extension.
    static var delays: Data {
        var g = GIFBuilder(width: 4, height: 4, globalPalette: palette4)
        for delay in [0, 1, 2, 10, 50] {
            g.frames.append(.init(width: 4, height: 4, pixels: solid(4, 4, UInt8(delay % 4)), delayCentiseconds: delay))
        }
        g.frames.append(.init(width: 4, height: 4, pixels: solid(4, 4, 3), delayCentiseconds: nil))
        return g.encode()
    }

    /// Two 4×4 frames with the given NETSCAPE2.0 loop value (nil: no block).
    static func loops(_ loop: Int?) -> Data {
        var g = GIFBuilder(width: 4, height: 4, globalPalette: palette4, loop: loop)
        g.frames.append(.init(width: 4, height: 4, pixels: solid(4, 4, 0)))
        g.frames.append(.init(width: 4, height: 4, pixels: solid(4, 4, 1)))
        return g.encode()
    }

    /// Frames partly and wholly outside the 6×5 screen (clipped; Pillow grows its canvas instead, so these are
    /// checked by hand).
    static var outsideScreen: Data {
        var g = GIFBuilder(width: 6, height: 5, globalPalette: palette4, loop: 0)
        g.frames.append(.init(width: 6, height: 5, pixels: solid(6, 5, 0)))
        g.frames.append(.init(left: 4, top: 3, width: 5, height: 4, pixels: solid(5, 4, 1), disposal: 2))
        g.frames.append(.init(left: 100, top: 2, width: 3, height: 3, pixels: solid(3, 3, 2)))
        g.frames.append(.init(left: 0, top: 4, width: 300, height: 2, pixels: solid(300, 2, 3), interlaced: true))
        return g.encode()
    }

    /// No global and no local colour map: indices are grey levels (as Pillow does).
    static var noColorMap: Data {
        var g = GIFBuilder(width: 5, height: 3)
        var pixels = [UInt8](repeating: 0, count: 15)
        for i in pixels.indices { pixels[i] = UInt8(i * 17) }
        g.frames.append(.init(width: 5, height: 3, pixels: pixels, codeSize: 8))
        return g.encode()
    }

    /// Indices past the end of a 4-entry map (code size 3 allows 0–7): opaque black (CVE-2022-28506 pattern).
    static var indexOutOfRange: Data {
        var g = GIFBuilder(width: 4, height: 2, globalPalette: palette4)
        g.frames.append(.init(width: 4, height: 2, pixels: [0, 1, 2, 3, 4, 5, 6, 7], codeSize: 3))
        return g.encode()
    }

    /// A fixture list for the Pillow comparison: name → bytes.
    static var pillowComparable: [(String, Data)] {
        [
            ("dispose_keep", disposeKeep), ("dispose_background", disposeBackground),
            ("dispose_previous", disposePrevious),
            ("interlaced", interlaced), ("local_color_tables", localColorTables), ("transparency", transparency),
            ("delays", delays), ("no_color_map", noColorMap), ("index_out_of_range", indexOutOfRange)
        ]
    }
}

/// 64-bit FNV-1a, the hash the Pillow reference script (bench/gif/pillow_reference.py) also computes.
func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01B3
    }
    return hash
}
