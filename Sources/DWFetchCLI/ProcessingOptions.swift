// ProcessingOptions: dwfetch's pixel flags (--resize, --fill, --format, --quality, --blur, --grayscale, --round,
// --tint, --verify) and their validation; dwfetch-pixels builds the variant plan from them.
import ArgumentParser
import DWImageTransform
import DWWebImage
import Foundation

/// The pixel flags, as parsed (no libvips here: the plan is rendered in dwfetch-pixels).
package struct ProcessingOptions: ParsableArguments {
    /// Every flag at its default.
    package init() {}

    @Option(
        help: ArgumentHelp(
            "Fit inside WxH keeping the aspect ratio (200x or x200: one side); never enlarges.", valueName: "WxH"))
    package var resize: String?

    @Flag(help: "With --resize: cover WxH and crop the centre, giving exactly WxH.")
    package var fill = false

    @Option(
        help: ArgumentHelp(
            "Convert to jpeg, png, webp, avif or gif (the -o file's extension follows).",
            valueName: "FMT"))
    package var format: String?

    @Option(help: ArgumentHelp("Quality 1–100 for lossy output (default 80).", valueName: "N"))
    package var quality: Int?

    @Option(help: ArgumentHelp("Gaussian blur of SIGMA pixels.", valueName: "SIGMA"))
    package var blur: Double?

    @Flag(help: "Grey levels only.")
    package var grayscale = false

    @Option(help: ArgumentHelp("Transparent rounded corners of RADIUS pixels (JPEG becomes PNG).", valueName: "RADIUS"))
    package var round: Double?

    @Option(
        help: ArgumentHelp("Blend the colour RRGGBB over the image at AA (default 80 = 50%).", valueName: "RRGGBB[AA]"))
    package var tint: String?

    @Flag(help: "Decode every image fully; a body that does not decode is 10000 (processing implies it).")
    package var verify = false

    package mutating func validate() throws {
        if let resize, Self.parseSize(resize) == nil {
            throw ValidationError("--resize expects WxH, Wx or xH with sizes 1–100000, got \"\(resize)\"")
        }
        if fill {
            guard let resize, let size = Self.parseSize(resize), size.width != nil, size.height != nil else {
                throw ValidationError("--fill needs --resize WxH with both sides")
            }
        }
        if let format, Self.parseFormat(format) == nil {
            throw ValidationError("--format expects jpeg, png, webp, avif or gif, got \"\(format)\"")
        }
        if let quality, !(1...100).contains(quality) {
            throw ValidationError("--quality must be 1–100, got \(quality)")
        }
        if let blur, !(blur.isFinite && blur > 0 && blur <= 1000) {
            throw ValidationError("--blur expects a sigma above 0 and at most 1000, got \(blur)")
        }
        if let round, !(round.isFinite && round >= 0 && round <= 100_000) {
            throw ValidationError("--round expects a radius 0–100000, got \(round)")
        }
        if let tint, Self.parseTint(tint) == nil {
            throw ValidationError("--tint expects RRGGBB or RRGGBBAA (hex), got \"\(tint)\"")
        }
    }

    /// Whether any pixel flag is given (`--verify` included): such a run needs the pixel engine (dwfetch-pixels).
    package var isRequested: Bool {
        resize != nil || fill || format != nil || quality != nil || blur != nil || grayscale || round != nil
            || tint != nil || verify
    }

    /// The flags as the one transform value the library and `dwfetch serve` use too (dwfetch-pixels renders its
    /// variant plan, `transform.processors()`).
    package var transform: DWTransform {
        var transform = DWTransform()
        if let resize, let size = Self.parseSize(resize) {
            (transform.width, transform.height) = (size.width ?? 0, size.height ?? 0)
            transform.resizingType = fill ? .fill : .fit
        }
        transform.blur = blur ?? 0
        transform.grayscale = grayscale
        if let tint, let colour = Self.parseTint(tint) { transform.tint = [colour.r, colour.g, colour.b, colour.a] }
        transform.roundCorners = round
        transform.format = format.flatMap(Self.parseFormat)
        transform.quality = quality
        return transform
    }

    /// `WxH`, `Wx` or `xH`, each side 1…100000.
    package static func parseSize(_ text: String) -> (width: Int?, height: Int?)? {
        let parts = text.lowercased().split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        func side(_ s: Substring) -> Int?? {
            if s.isEmpty { return .some(nil) }
            guard s.allSatisfy(\.isASCII), let n = Int(s), (1...100_000).contains(n) else { return nil }
            return .some(n)
        }
        guard let width = side(parts[0]), let height = side(parts[1]), width != nil || height != nil else { return nil }
        return (width, height)
    }

    /// A `--format` value: one of ``DWImageFormat/conversionTargets`` by any of its names.
    package static func parseFormat(_ text: String) -> DWImageFormat? { DWImageFormat(conversionTargetNamed: text) }

    /// `RRGGBB` (alpha 0x80, half) or `RRGGBBAA`, an optional leading `#`; components 0…1.
    package static func parseTint(_ text: String) -> (r: Double, g: Double, b: Double, a: Double)? {
        let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit), let value = UInt64(hex, radix: 16) else {
            return nil
        }
        let full = hex.count == 6 ? value << 8 | 0x80 : value
        func component(_ shift: UInt64) -> Double { Double((full >> shift) & 0xFF) / 255 }
        return (component(24), component(16), component(8), component(0))
    }
}
