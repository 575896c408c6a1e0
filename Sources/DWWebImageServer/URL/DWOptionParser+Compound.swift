// The options of several arguments: resize, size, extend, crop, trim, padding, background, adjust, monochrome,
// watermark, format_quality, filename — argument by argument as imgproxy reads them.
import DWImageTransform
import DWWebImage
import Foundation

extension DWOptionParser {
    func resize(_ r: ArgReader, _ t: inout DWTransform) throws(ParseError) {
        try r.max(8)
        if !r.args[0].isEmpty { t.resizingType = try r.resizeMode(0) }
        if r.args.count > 1 { try size(r.dropping(1), &t) }
    }

    func size(_ r: ArgReader, _ t: inout DWTransform) throws(ParseError) {
        try r.max(7)
        let a = r.args
        if !a[0].isEmpty { t.width = try r.dimension(0) }
        if a.count > 1, !a[1].isEmpty { t.height = try r.dimension(1) }
        if a.count > 2, !a[2].isEmpty { t.enlarge = r.bool(2) }
        if a.count > 3, !a[3].isEmpty { t.extend = try extend(r.dropping(3)) }
    }

    /// `1|0[:gravity[:x:y]]`; nil when turned off.
    func extend(_ r: ArgReader) throws(ParseError) -> DWExtend? {
        try r.max(4)
        guard r.bool(0) else { return nil }
        return DWExtend(gravity: r.args.count > 1 ? try r.gravity(from: 1, allowed: .extend) : .center)
    }

    func crop(_ r: ArgReader, _ t: inout DWTransform) throws(ParseError) {
        try r.max(5)
        t.cropWidth = try r.nonNegativeDouble(0, upTo: 1e6)
        if r.args.count > 1 { t.cropHeight = try r.nonNegativeDouble(1, upTo: 1e6) }
        t.cropGravity = r.args.count > 2 ? try r.gravity(from: 2, allowed: .crop) : nil
    }

    func trim(_ r: ArgReader, _ t: inout DWTransform) throws(ParseError) {
        try r.max(4)
        let a = r.args
        var trim = DWTrim()
        if !a[0].isEmpty { trim.threshold = try r.nonNegativeDouble(0, upTo: 1000) }
        if a.count > 1, !a[1].isEmpty { trim.color = try r.color(1) }
        if a.count > 2, !a[2].isEmpty { trim.equalHorizontal = r.bool(2) }
        if a.count > 3, !a[3].isEmpty { trim.equalVertical = r.bool(3) }
        t.trim = trim
    }

    /// CSS order; a missing right copies top, bottom copies top, left copies right.
    func padding(_ r: ArgReader, _ t: inout DWTransform) throws(ParseError) {
        try r.max(4)
        let a = r.args
        func side(_ i: Int, _ fallback: Int) throws(ParseError) -> Int {
            a.count > i && !a[i].isEmpty ? try r.nonNegativeInt(i, upTo: 10_000) : fallback
        }
        let top = try side(0, t.padding.top)
        let right = try side(1, top)
        let bottom = try side(2, top)
        t.padding = DWPadding(top: top, right: right, bottom: bottom, left: try side(3, right))
    }

    /// `RRGGBB` hex, `R:G:B` decimals, or empty (none).
    func background(_ r: ArgReader, _ t: inout DWTransform) throws(ParseError) {
        switch r.args.count {
        case 1: t.background = r.args[0].isEmpty ? nil : try r.color(0)
        case 3:
            var c: [UInt8] = []
            for i in 0..<3 { c.append(UInt8(try r.intIn(i, 0...255))) }
            t.background = DWColor(red: c[0], green: c[1], blue: c[2])
        default: throw r.error("expects RRGGBB or R:G:B")
        }
    }

    /// imgproxy Pro's `a:brightness:contrast:saturation`, each optional.
    func adjust(_ r: ArgReader, _ t: inout DWTransform) throws(ParseError) {
        try r.max(3)
        let a = r.args
        if !a[0].isEmpty { t.brightness = try r.intIn(0, -255...255) }
        if a.count > 1, !a[1].isEmpty { t.contrast = try r.nonNegativeDouble(1, upTo: 100) }
        if a.count > 2, !a[2].isEmpty { t.saturation = try r.nonNegativeDouble(2, upTo: 100) }
    }

    /// imgproxy Pro's `mc:intensity[:RRGGBB]`; intensity 0 turns it off.
    func monochrome(_ r: ArgReader, _ t: inout DWTransform) throws(ParseError) {
        try r.max(2)
        var mono = DWMonochrome()
        if !r.args[0].isEmpty { mono.intensity = try r.nonNegativeDouble(0, upTo: 1) }
        if r.args.count > 1, !r.args[1].isEmpty { mono.color = try r.color(1) }
        t.monochrome = mono.intensity > 0 ? mono : nil
    }

    /// `wm:opacity[:position[:x:y[:scale]]]`; opacity 0 turns it off.
    func watermark(_ r: ArgReader, _ t: inout DWTransform) throws(ParseError) {
        try r.max(7)
        let a = r.args
        guard let opacity = Double(a[0]), opacity.isFinite, (0...1).contains(opacity) else {
            throw r.error("opacity must be 0-1")
        }
        var placement = DWWatermarkPlacement(opacity: opacity)
        if a.count > 1, !a[1].isEmpty {
            guard let kind = DWGravity.Kind(rawValue: a[1]), GravityContext.watermark.allows(kind) else {
                throw r.error("unknown position '\(a[1])'")
            }
            placement.position.kind = kind
        }
        if a.count > 2, !a[2].isEmpty { placement.position.x = try r.double(2) }
        if a.count > 3, !a[3].isEmpty { placement.position.y = try r.double(3) }
        if a.count > 4, !a[4].isEmpty { placement.scale = try r.positiveDouble(4) }
        t.watermark = opacity > 0 ? placement : nil
    }

    func formatQuality(_ r: ArgReader, _ t: inout DWTransform) throws(ParseError) {
        guard r.args.count % 2 == 0 else { throw r.error("expects format:quality pairs") }
        for i in stride(from: 0, to: r.args.count, by: 2) {
            let format = try r.anyFormat(i)
            let q = try r.intIn(i + 1, 0...100)
            if q == 0 { t.formatQuality[format] = nil } else { t.formatQuality[format] = q }
        }
    }

    /// `fn:name[:encoded]`: with encoded true, the name is URL-safe base64.
    func filename(_ r: ArgReader, _ o: inout DWImgproxyOptions) throws(ParseError) {
        try r.max(2)
        var name = r.args[0]
        if r.args.count > 1, r.bool(1) {
            guard let data = DWProxyURL.base64URLDecode(name[...]), let text = String(data: data, encoding: .utf8)
            else {
                throw r.error("expects URL-safe base64")
            }
            name = text
        }
        o.filename = name.isEmpty ? nil : name
    }
}
