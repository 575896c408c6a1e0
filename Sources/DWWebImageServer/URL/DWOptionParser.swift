// DWOptionParser: imgproxy's processing options (every one of its open-source edition, long and short names),
// with its argument rules and defaults, into DWImgproxyOptions.
import DWImageTransform
import DWWebImage
import Foundation

/// Applies `name:arg:arg…` segments to ``DWImgproxyOptions``. Every failure names the option (a 400).
/// A plain value; call on any thread.
struct DWOptionParser {
    let presets: DWPresets
    /// "Now" for `exp:` (Unix seconds).
    let now: Int64

    typealias ParseError = DWProxyURL.ParseError

    func apply(segment: Substring, to o: inout DWImgproxyOptions, presetStack: [String] = []) throws(ParseError) {
        let parts = segment.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            .map { String(Substring($0)) }
        try apply(name: parts[0], Array(parts.dropFirst()), to: &o, presetStack: presetStack)
    }

    func apply(name: String, _ a: [String], to o: inout DWImgproxyOptions, presetStack: [String]) throws(ParseError) {
        let r = ArgReader(name: name, args: a)
        try r.atLeast(1)
        switch name {
        case "resize", "rs": try resize(r, &o.transform)
        case "size", "s": try size(r, &o.transform)
        case "resizing_type", "rt": try r.max(1); o.transform.resizingType = try r.resizeMode(0)
        case "width", "w": try r.max(1); o.transform.width = try r.dimension(0)
        case "height", "h": try r.max(1); o.transform.height = try r.dimension(0)
        case "min-width", "mw": try r.max(1); o.transform.minWidth = try r.dimension(0)
        case "min-height", "mh": try r.max(1); o.transform.minHeight = try r.dimension(0)
        case "zoom", "z":
            try r.max(2)
            o.transform.zoomX = try r.positiveDouble(0)
            o.transform.zoomY = a.count > 1 ? try r.positiveDouble(1) : o.transform.zoomX
        case "dpr": try r.max(1); o.transform.dpr = try r.positiveDouble(0)
        case "enlarge", "el": try r.max(1); o.transform.enlarge = r.bool(0)
        case "extend", "ex": o.transform.extend = try extend(r)
        case "extend_aspect_ratio", "extend_ar", "exar": o.transform.extendAspectRatio = try extend(r)
        case "gravity", "g": o.transform.gravity = try r.gravity(from: 0, allowed: .crop)
        case "crop", "c": try crop(r, &o.transform)
        case "trim", "t": try trim(r, &o.transform)
        case "padding", "pd": try padding(r, &o.transform)
        case "auto_rotate", "ar": try r.max(1); o.transform.autoRotate = r.bool(0)
        case "rotate", "rot":
            try r.max(1)
            let angle = try r.int(0)
            guard angle % 90 == 0 else { throw r.error("rotation angle must be a multiple of 90") }
            o.transform.rotate = ((angle % 360) + 360) % 360
        case "flip", "fl":
            try r.max(2)
            if !a[0].isEmpty { o.transform.flipHorizontal = r.bool(0) }
            if a.count > 1, !a[1].isEmpty { o.transform.flipVertical = r.bool(1) }
        case "background", "bg": try background(r, &o.transform)
        case "blur", "bl", "sharpen", "sh", "pixelate", "pix": try filter(r, &o.transform)
        case "adjust", "a": try adjust(r, &o.transform)
        case "brightness", "br": try r.max(1); o.transform.brightness = try r.intIn(0, -255...255)
        case "contrast", "co": try r.max(1); o.transform.contrast = try r.nonNegativeDouble(0, upTo: 100)
        case "saturation", "sa": try r.max(1); o.transform.saturation = try r.nonNegativeDouble(0, upTo: 100)
        case "monochrome", "mc": try monochrome(r, &o.transform)
        case "watermark", "wm": try watermark(r, &o.transform)
        case "strip_metadata", "sm": try r.max(1); o.transform.stripMetadata = r.bool(0)
        case "keep_copyright", "kcr": try r.max(1); o.transform.keepCopyright = r.bool(0)
        case "strip_color_profile", "scp": try r.max(1); o.transform.stripColorProfile = r.bool(0)
        case "enforce_thumbnail", "eth": try r.max(1); o.transform.enforceThumbnail = r.bool(0)
        case "preserve_hdr", "ph": try r.max(1); o.transform.preserveHDR = r.bool(0)
        case "max_src_resolution", "msr", "max_src_file_size", "msfs", "max_animation_frames", "maf",
            "max_animation_frame_resolution", "mafr", "max_result_dimension", "mrd":
            try security(r, &o)
        case "quality", "q": try r.max(1); let q = try r.intIn(0, 0...100); o.transform.quality = q == 0 ? nil : q
        case "format_quality", "fq": try formatQuality(r, &o.transform)
        case "max_bytes", "mb": try r.max(1); o.transform.maxBytes = try r.nonNegativeInt(0, upTo: Int(Int32.max))
        case "never_larger", "nl": try r.max(1); o.transform.neverLarger = r.bool(0)
        case "loop", "lp": try r.max(1); o.transform.loopCount = try r.nonNegativeInt(0, upTo: 65535)
        case "format", "f", "ext": try r.max(1); o.transform.format = try r.format(0)
        case "skip_processing", "skp":
            for index in a.indices { o.transform.skipProcessing.insert(try r.anyFormat(index)) }
        case "raw": try r.max(1); o.raw = r.bool(0)
        case "cachebuster", "cb": try r.max(1); o.transform.cacheBuster = a[0]
        case "expires", "exp": o.expires = try expires(r)
        case "filename", "fn": try filename(r, &o)
        case "tag": o.tag = try tag(r)
        case "return_attachment", "att": try r.max(1); o.returnAttachment = r.bool(0)
        case "preset", "pr":
            for preset in a { try applyPreset(preset, to: &o, presetStack: presetStack) }
        default:
            throw ParseError("unknown option '\(name)'")
        }
    }

    /// `exp:TIMESTAMP`: the Unix time after which the URL answers 404 (0: never).
    private func expires(_ r: ArgReader) throws(ParseError) -> Int64? {
        try r.max(1)
        guard let time = Int64(r.args[0]) else { throw r.error("expects a Unix timestamp") }
        if time > 0 && time < now { throw ParseError("expired URL (exp:\(time))", status: 404) }
        return time > 0 ? time : nil
    }

    /// `tag:NAME`: 1 to 64 letters, digits, `_` or `-`.
    private func tag(_ r: ArgReader) throws(ParseError) -> String {
        try r.max(1)
        let name = r.args[0]
        guard (1...64).contains(name.utf8.count),
            name.utf8.allSatisfy({
                $0 == 45 || $0 == 95 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0)
            })
        else { throw r.error("expects 1 to 64 letters, digits, _ or -") }
        return name
    }

    /// `bl:`, `sh:` and `pix:`, read as before (up to 1000 and 10000, else 400) and served within
    /// ``DWFilterClamps``.
    func filter(_ r: ArgReader, _ t: inout DWTransform) throws(ParseError) {
        try r.max(1)
        switch r.name {
        case "blur", "bl":
            t.blur = DWFilterClamps.sigma(try r.nonNegativeDouble(0, upTo: 1000), limit: DWFilterClamps.blurSigma)
        case "sharpen", "sh":
            t.sharpen = DWFilterClamps.sigma(try r.nonNegativeDouble(0, upTo: 1000), limit: DWFilterClamps.sharpenSigma)
        default: t.pixelate = min(try r.nonNegativeInt(0, upTo: 10_000), DWFilterClamps.pixelateSize)
        }
    }

    func applyPreset(_ preset: String, to o: inout DWImgproxyOptions, presetStack: [String]) throws(ParseError) {
        guard let segments = presets.presets[preset] else { throw ParseError("unknown preset '\(preset)'") }
        guard !presetStack.contains(preset) else { return }  // imgproxy: a recursive use is skipped
        o.presets.append(preset)
        for segment in segments { try apply(segment: segment[...], to: &o, presetStack: presetStack + [preset]) }
    }
}
