// APNGStructure: an APNG's animation chunks (acTL, fcTL, IDAT/fdAT) walked in Swift, and each frame rebuilt as a
// standalone PNG (IHDR with the frame's size, the shared PLTE and tRNS, its image data) for libvips to decode.
import DWWebImage
import Foundation

/// One APNG frame: its rect on the canvas, timing, operations and where its zlib data lies in the file.
struct APNGFrame: Sendable, Equatable {
    /// How the frame's rect is left before the next frame is drawn (`dispose_op`).
    enum Dispose: UInt8, Sendable { case none = 0, background = 1, previous = 2 }
    /// How the frame is drawn onto the canvas (`blend_op`).
    enum Blend: UInt8, Sendable { case source = 0, over = 1 }

    var x: Int, y: Int, width: Int, height: Int
    /// The delay as browsers show it (`delay_num / delay_den`, den 0 → 100; 10 ms or less → 100 ms).
    var delay: TimeInterval
    var dispose: Dispose
    var blend: Blend
    /// The zlib stream: IDAT bodies, or fdAT bodies without their sequence numbers, in order.
    var data: [Range<Int>] = []
}

/// The structure of an APNG. Built by ``parse(_:limits:)`` on the caller's thread; immutable afterwards.
struct APNGStructure: Sendable, Equatable {
    var width: Int
    var height: Int
    /// `num_plays`: 0 = forever.
    var plays: Int
    /// The 13 bytes of IHDR.
    var header: [UInt8]
    /// Whole chunks (length, type, body, CRC) every frame's PNG repeats: PLTE and tRNS.
    var shared: [Range<Int>] = []
    var frames: [APNGFrame] = []

    /// Walks the chunks; frames are the fcTL chunks that have image data, at most acTL's `num_frames`.
    ///
    /// - Throws: 10000 when the chunks are not an APNG (no acTL, a frame rect outside the canvas, a frame without
    ///   data, a chunk cut off); 10005 over `limits` (canvas, frame count, total area of the frame rects).
    static func parse(_ data: Data, limits: DWAnimatedImage.Limits) throws(DWWebImageError) -> APNGStructure {
        let result: Result<APNGStructure, DWWebImageError> = data.withUnsafeBytes { bytes in
            Result { () throws(DWWebImageError) -> APNGStructure in try parse(bytes) }
        }
        let structure = try result.get()
        try AnimationLimits.check(
            width: structure.width, height: structure.height,
            frameAreas: structure.frames.map { $0.width * $0.height }, limits: limits)
        return structure
    }

    private static func parse(_ b: UnsafeRawBufferPointer) throws(DWWebImageError) -> APNGStructure {
        func u32(_ at: Int) -> Int { Int(b.bigEndianUInt32(at: at)) }
        func u16(_ at: Int) -> Int { Int(b.bigEndianUInt16(at: at)) }
        func bad(_ why: String) -> DWWebImageError { .malformed("APNG", why) }
        var structure = APNGStructure(width: 0, height: 0, plays: 0, header: [])
        var declared: Int?
        var offset = 8
        while offset + 12 <= b.count {
            let length = u32(offset), body = offset + 8
            guard length <= b.count - offset - 12 else { throw bad("chunk at byte \(offset) is cut off") }
            let type = String(decoding: b[offset + 4..<body], as: UTF8.self)
            switch type {
            case "IHDR" where length == 13:
                structure.header = Array(b[body..<body + 13])
                structure.width = u32(body)
                structure.height = u32(body + 4)
            case "PLTE", "tRNS":
                structure.shared.append(offset..<body + length + 4)
            case "acTL" where length >= 8:
                declared = u32(body)
                structure.plays = u32(body + 4)
            case "fcTL" where length >= 26:
                if let last = structure.frames.last, last.data.isEmpty { throw bad("frame without image data") }
                let frame = APNGFrame(
                    x: u32(body + 12), y: u32(body + 16), width: u32(body + 4), height: u32(body + 8),
                    delay: DWAnimatedImage.browserDelay(
                        Double(u16(body + 20)) / Double(max(1, u16(body + 22) == 0 ? 100 : u16(body + 22)))),
                    dispose: APNGFrame.Dispose(rawValue: b[body + 24]) ?? .none,
                    blend: APNGFrame.Blend(rawValue: b[body + 25]) ?? .source)
                guard frame.width > 0, frame.height > 0, frame.x + frame.width <= structure.width,
                    frame.y + frame.height <= structure.height
                else {
                    throw bad(
                        "frame \(structure.frames.count) lies outside the \(structure.width)×\(structure.height) canvas"
                    )
                }
                structure.frames.append(frame)
            case "IDAT":
                // The default image is frame 0 only when an fcTL came before it.
                if !structure.frames.isEmpty, structure.frames.count == 1 {
                    structure.frames[0].data.append(body..<body + length)
                }
            case "fdAT" where length > 4:
                if !structure.frames.isEmpty {
                    structure.frames[structure.frames.count - 1].data.append(body + 4..<body + length)
                }
            case "IEND":
                offset = b.count
                continue
            default:
                break
            }
            offset = body + length + 4
        }
        guard let declared, structure.header.count == 13 else { throw bad("no acTL or IHDR chunk") }
        if let last = structure.frames.last, last.data.isEmpty { structure.frames.removeLast() }
        if structure.frames.count > declared { structure.frames.removeLast(structure.frames.count - declared) }
        guard !structure.frames.isEmpty else { throw bad("no frame has image data") }
        return structure
    }

    /// Frame `index` as a standalone PNG: IHDR with the frame's size, PLTE and tRNS, one IDAT with its data, IEND.
    func png(frame index: Int, of data: Data) -> Data {
        let frame = frames[index]
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = self.header
        for (i, value) in [frame.width, frame.height].enumerated() {
            for k in 0..<4 { header[i * 4 + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
        }
        Self.append("IHDR", header, to: &png)
        for chunk in shared {
            png.append(data[data.startIndex + chunk.lowerBound..<data.startIndex + chunk.upperBound])
        }
        var stream = [UInt8]()
        stream.reserveCapacity(frame.data.reduce(0) { $0 + $1.count })
        for range in frame.data {
            stream.append(contentsOf: data[data.startIndex + range.lowerBound..<data.startIndex + range.upperBound])
        }
        Self.append("IDAT", stream, to: &png)
        Self.append("IEND", [], to: &png)
        return png
    }

    private static func append(_ type: String, _ body: [UInt8], to png: inout Data) {
        let count = UInt32(body.count)
        png.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: count >> $0) })
        let typed = Array(type.utf8) + body
        png.append(contentsOf: typed)
        let crc = CRC32.checksum(typed)
        png.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) })
    }
}

/// PNG's CRC-32 (ISO 3309, the table-driven form), for the chunks of the rebuilt frames.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
