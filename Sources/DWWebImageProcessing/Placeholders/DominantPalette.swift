// DominantPalette: imgproxy Pro's six dominant colours (vibrant, light/dark vibrant, muted, light/dark muted), chosen
// from an image's main colours as Android's Palette chooses its swatches.
import DWWebImage
import Foundation

/// Picks the six named colours from up to 16 main colours (``DominantColors``): each name has a lightness range and
/// target, a saturation range and target (Android Palette's: vibrant saturation at least 0.35, target 1; muted at
/// most 0.4, target 0.3; dark lightness at most 0.45, target 0.26; normal 0.3…0.7, target 0.5; light at least 0.55,
/// target 0.74), and takes the colour in range scoring best on closeness to the targets (weights 3 and 6) and share
/// of the image (weight 1), a colour going to one name at most, in the order vibrant, light vibrant, dark vibrant,
/// muted, light muted, dark muted. Near-black and near-white colours (lightness under 0.05 or over 0.95) are never
/// picked. `buildMissed` makes a missing colour from a found one at the missing name's target lightness or
/// saturation. Pure; deterministic.
enum DominantPalette {
    private struct Target {
        let name: String
        let luma: (min: Double, target: Double, max: Double)
        let saturation: (min: Double, target: Double, max: Double)
    }

    private static let targets = [
        Target(name: "vibrant", luma: (0.3, 0.5, 0.7), saturation: (0.35, 1, 1)),
        Target(name: "light_vibrant", luma: (0.55, 0.74, 1), saturation: (0.35, 1, 1)),
        Target(name: "dark_vibrant", luma: (0, 0.26, 0.45), saturation: (0.35, 1, 1)),
        Target(name: "muted", luma: (0.3, 0.5, 0.7), saturation: (0, 0.3, 0.4)),
        Target(name: "light_muted", luma: (0.55, 0.74, 1), saturation: (0, 0.3, 0.4)),
        Target(name: "dark_muted", luma: (0, 0.26, 0.45), saturation: (0, 0.3, 0.4))
    ]

    static func find(in colors: [DWDominantColor], buildMissed: Bool) -> [String: DWColor] {
        let swatches = colors.map { (hsl: HSL($0.color), fraction: $0.fraction) }
            .filter { $0.hsl.l >= 0.05 && $0.hsl.l <= 0.95 }
        let most = swatches.map(\.fraction).max() ?? 1
        var chosen: [String: HSL] = [:]
        var used = Set<Int>()
        for target in targets {
            var best: (index: Int, score: Double)?
            for (index, swatch) in swatches.enumerated() where !used.contains(index) {
                let (s, l) = (swatch.hsl.s, swatch.hsl.l)
                guard (target.saturation.min...target.saturation.max).contains(s),
                    (target.luma.min...target.luma.max).contains(l)
                else { continue }
                let score =
                    (3 * (1 - abs(s - target.saturation.target)) + 6 * (1 - abs(l - target.luma.target))
                        + swatch.fraction / most) / 10
                if best == nil || score > best!.score { best = (index, score) }
            }
            if let best {
                used.insert(best.index)
                chosen[target.name] = swatches[best.index].hsl
            }
        }
        if buildMissed { build(&chosen) }
        return chosen.mapValues(\.color)
    }

    /// node-vibrant's rules for the missing: the vibrant ones from each other (or, with none, the dark and light
    /// vibrant from their muted), at the missing one's target lightness; a muted one from its vibrant, at saturation
    /// 0.3.
    private static func build(_ p: inout [String: HSL]) {
        func from(_ source: String, lightness: Double? = nil, saturation: Double? = nil) -> HSL? {
            guard var hsl = p[source] else { return nil }
            if let lightness { hsl.l = lightness }
            if let saturation { hsl.s = saturation }
            return hsl
        }
        if p["vibrant"] == nil, p["dark_vibrant"] == nil, p["light_vibrant"] == nil {
            p["dark_vibrant"] = from("dark_muted", lightness: 0.26)
            p["light_vibrant"] = from("light_muted", lightness: 0.74)
        }
        if p["vibrant"] == nil {
            p["vibrant"] = from("dark_vibrant", lightness: 0.5) ?? from("light_vibrant", lightness: 0.5)
        }
        if p["dark_vibrant"] == nil { p["dark_vibrant"] = from("vibrant", lightness: 0.26) }
        if p["light_vibrant"] == nil { p["light_vibrant"] = from("vibrant", lightness: 0.74) }
        if p["muted"] == nil { p["muted"] = from("vibrant", saturation: 0.3) }
        if p["dark_muted"] == nil { p["dark_muted"] = from("dark_vibrant", saturation: 0.3) }
        if p["light_muted"] == nil { p["light_muted"] = from("light_vibrant", saturation: 0.3) }
    }

    /// Hue (0…1), saturation and lightness of an sRGB colour.
    struct HSL {
        var h: Double, s: Double, l: Double

        init(_ color: DWColor) {
            let (r, g, b) = (Double(color.red) / 255, Double(color.green) / 255, Double(color.blue) / 255)
            let (high, low) = (max(r, g, b), min(r, g, b))
            l = (high + low) / 2
            let d = high - low
            guard d > 0 else { (h, s) = (0, 0); return }
            s = l > 0.5 ? d / (2 - high - low) : d / (high + low)
            switch high {
            case r: h = ((g - b) / d + (g < b ? 6 : 0)) / 6
            case g: h = ((b - r) / d + 2) / 6
            default: h = ((r - g) / d + 4) / 6
            }
        }

        var color: DWColor {
            func channel(_ t: Double) -> UInt8 {
                let q = l < 0.5 ? l * (1 + s) : l + s - l * s
                let p = 2 * l - q
                var t = t
                if t < 0 { t += 1 }
                if t > 1 { t -= 1 }
                let value =
                    t < 1 / 6 ? p + (q - p) * 6 * t : t < 1 / 2 ? q : t < 2 / 3 ? p + (q - p) * (2 / 3 - t) * 6 : p
                return UInt8((min(1, max(0, value)) * 255).rounded())
            }
            return DWColor(red: channel(h + 1 / 3), green: channel(h), blue: channel(h - 1 / 3))
        }
    }
}

extension DWImage {
    /// imgproxy Pro's dominant colours of the first frame (`/info`'s `dc:1`): up to six of `vibrant`,
    /// `light_vibrant`, `dark_vibrant`, `muted`, `light_muted` and `dark_muted` (``DominantPalette``), each name
    /// present when the image has such a colour, or, with `buildMissed`, when it can be made from one found. Runs on
    /// the caller's thread.
    ///
    /// - Throws: 10000 when the image does not decode; 10005 over the limits.
    public func dominantPalette(buildMissed: Bool = false) throws(DWWebImageError) -> [String: DWColor] {
        DominantPalette.find(in: try dominantColors(count: 16), buildMissed: buildMissed)
    }
}
