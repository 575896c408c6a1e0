// APNGFrameSource: an APNG as a DWAnimatedFrameSource — each frame's PNG decoded by libvips, composited here with
// the APNG specification's dispose_op (NONE, BACKGROUND, PREVIOUS) and blend_op (SOURCE, OVER), as browsers do.
internal import CVips
import DWWebImage
import Foundation

/// An APNG's structure (``APNGStructure``) and bytes. Immutable.
struct APNGFrameSource: DWAnimatedFrameSource {
    let data: Data
    let structure: APNGStructure

    /// Reads the structure and checks `limits`. - Throws: as ``APNGStructure/parse(_:limits:)``.
    init(_ image: DWImage, limits: DWAnimatedImage.Limits) throws(DWWebImageError) {
        data = image.data
        structure = try APNGStructure.parse(image.data, limits: limits)
    }

    var width: Int { structure.width }
    var height: Int { structure.height }
    var frameDelays: [TimeInterval] { structure.frames.map(\.delay) }
    var loopCount: Int { structure.plays }

    /// What a PREVIOUS frame covered is not in its snapshot (frame 0's PREVIOUS acts as BACKGROUND).
    func canResume(after index: Int) -> Bool { index == 0 || structure.frames[index].dispose != .previous }

    func makeCompositor() -> any DWFrameCompositor { APNGCompositor(source: self) }

    /// Frame `index`'s own pixels (its rect, RGBA8 straight alpha), decoded by libvips from a standalone PNG.
    func decode(frame index: Int) throws(DWWebImageError) -> [UInt8] {
        try Vips.start()
        let frame = structure.frames[index]
        let png = structure.png(frame: index, of: data)
        var image = try Decoder.normalize(try Decoder.open(png, format: .png), autorotate: false)
        if !image.hasAlpha {
            let opaque = image
            image = try Vips.make("cannot add alpha") { cvips_bandjoin_const1(opaque.pointer, 255, $0) }
        }
        guard image.width == frame.width, image.height == frame.height, image.bands == 4 else {
            throw .apngFrame(index, decodedTo: "\(image.width)×\(image.height)×\(image.bands)")
        }
        var length = 0
        guard let pixels = withExtendedLifetime(png, { cvips_write_to_memory(image.pointer, &length) }) else {
            throw Vips.error("cannot decode APNG frame \(index)")
        }
        defer { cvips_free(pixels) }
        guard length == frame.width * frame.height * 4 else {
            throw .apngFrame(index, decodedTo: "\(length) bytes")
        }
        return [UInt8](UnsafeRawBufferPointer(start: pixels, count: length))
    }
}

/// The APNG canvas: RGBA8 straight alpha, starting transparent.
struct APNGCompositor: DWFrameCompositor {
    let source: APNGFrameSource
    private var pixels: [UInt8]
    private(set) var drawn = -1
    /// What frame ``drawn`` covered before it was drawn, when its dispose_op is PREVIOUS.
    private var saved: [UInt8] = []

    init(source: APNGFrameSource) {
        self.source = source
        pixels = [UInt8](repeating: 0, count: source.width * source.height * 4)
    }

    mutating func reset() {
        pixels.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        drawn = -1
        saved = []
    }

    mutating func load(_ frame: DWImageFrame) -> Bool {
        guard frame.pixels.count == pixels.count else { return false }
        pixels = frame.pixels
        drawn = frame.index
        saved = []
        return true
    }

    mutating func drawNext() -> Bool {
        let frames = source.structure.frames
        if drawn >= 0 { dispose(frames[drawn], first: drawn == 0) }
        drawn += 1
        let frame = frames[drawn]
        saved = frame.dispose == .previous && drawn > 0 ? copyRect(frame) : []
        guard let rgba = try? source.decode(frame: drawn) else { return false }
        draw(rgba, frame)
        return true
    }

    func snapshot(delay: TimeInterval, isComplete: Bool) -> DWImageFrame {
        var bytes = pixels
        AnimationLimits.clearTransparent(&bytes)
        return DWImageFrame(
            index: drawn, width: source.width, height: source.height, pixels: bytes, delay: delay,
            isComplete: isComplete)
    }

    // MARK: - Operations

    /// dispose_op of the frame just shown; on the first frame PREVIOUS is BACKGROUND (APNG specification).
    private mutating func dispose(_ frame: APNGFrame, first: Bool) {
        switch frame.dispose {
        case .none:
            break
        case .background:
            clearRect(frame)
        case .previous:
            if first || saved.isEmpty { clearRect(frame) } else { pasteRect(saved, frame) }
        }
        saved = []
    }

    private mutating func clearRect(_ frame: APNGFrame) {
        let rowBytes = frame.width * 4
        pixels.withUnsafeMutableBufferPointer { canvas in
            for y in frame.y..<frame.y + frame.height {
                let start = (y * source.width + frame.x) * 4
                UnsafeMutableBufferPointer(rebasing: canvas[start..<start + rowBytes]).update(repeating: 0)
            }
        }
    }

    private func copyRect(_ frame: APNGFrame) -> [UInt8] {
        var rect = [UInt8]()
        rect.reserveCapacity(frame.width * frame.height * 4)
        for y in frame.y..<frame.y + frame.height {
            let start = (y * source.width + frame.x) * 4
            rect.append(contentsOf: pixels[start..<start + frame.width * 4])
        }
        return rect
    }

    private mutating func pasteRect(_ rect: [UInt8], _ frame: APNGFrame) {
        let rowBytes = frame.width * 4
        for row in 0..<frame.height {
            let start = ((frame.y + row) * source.width + frame.x) * 4
            pixels.replaceSubrange(start..<start + rowBytes, with: rect[row * rowBytes..<(row + 1) * rowBytes])
        }
    }

    /// blend_op SOURCE replaces the rect; OVER composites with straight alpha (APNG specification's formula).
    private mutating func draw(_ rgba: [UInt8], _ frame: APNGFrame) {
        guard frame.blend == .over else { return pasteRect(rgba, frame) }
        let width = source.width
        pixels.withUnsafeMutableBufferPointer { canvas in
            rgba.withUnsafeBufferPointer { src in
                for row in 0..<frame.height {
                    var s = row * frame.width * 4, d = ((frame.y + row) * width + frame.x) * 4
                    for _ in 0..<frame.width {
                        Self.over(src.baseAddress! + s, canvas.baseAddress! + d)
                        s += 4
                        d += 4
                    }
                }
            }
        }
    }

    /// `src` OVER `dst`, straight alpha, 8 bits: a = sa + da·(1 − sa), c = (sc·sa + dc·da·(1 − sa)) / a, rounded.
    @inline(__always)
    private static func over(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>) {
        let sa = Int(src[3])
        if sa == 255 {
            dst.update(from: src, count: 4)
            return
        }
        if sa == 0 { return }
        let u = sa * 255, v = (255 - sa) * Int(dst[3]), al = u + v
        for c in 0..<3 { dst[c] = UInt8((Int(src[c]) * u + Int(dst[c]) * v + al / 2) / al) }
        dst[3] = UInt8((al + 127) / 255)
    }
}
