// DWWebImageError+Processing: the kinds of error the processing module builds, each with the message its sites share.
import DWWebImage
import Foundation

extension DWWebImageError {
    /// 10000: `subject` (a format such as "BMP", or a helper's input or answer) does not read: "subject: why".
    /// Any thread.
    static func malformed(_ subject: String, _ why: String) -> DWWebImageError {
        DWWebImageError(.notAnImage, "\(subject): \(why)")
    }

    /// 10000: `what` failed, with the library's `reason` after a colon when it gave one. Any thread.
    static func failed(_ what: String, reason: String) -> DWWebImageError {
        DWWebImageError(.notAnImage, reason.isEmpty ? what : "\(what): \(reason)")
    }

    /// 10000: a `format` animation (`GIF`) without a single frame. Any thread.
    static func noFrames(_ format: String) -> DWWebImageError {
        DWWebImageError(.notAnImage, "\(format) has no frames")
    }

    /// 10000: frame `index` of a `format` animation (`GIF`, `png`…) whose data is truncated or corrupt. Any thread.
    static func corruptFrame(_ index: Int, format: String) -> DWWebImageError {
        DWWebImageError(.notAnImage, "\(format) frame \(index) is corrupt")
    }

    /// 10000: APNG frame `index` decoded to `what` instead of the frame its chunks declare. Any thread.
    static func apngFrame(_ index: Int, decodedTo what: String) -> DWWebImageError {
        DWWebImageError(.notAnImage, "APNG frame \(index) decoded to \(what)")
    }

    /// 10000: an SVG the XML parser cannot read (`reason` is the parser's). Any thread.
    static func brokenSVG(_ reason: String) -> DWWebImageError {
        DWWebImageError(.notAnImage, "broken or unsupported SVG image: \(reason)")
    }

    /// 10000: an SVG refused before rendering for `reason`. Any thread.
    static func svgRefused(_ reason: String) -> DWWebImageError {
        DWWebImageError(.notAnImage, "SVG refused before rendering: \(reason)")
    }

    /// 10005: an SVG refused before rendering for `reason`, its `size` over `limit`. Any thread.
    static func svgRefused(_ reason: String, size: Int64, limit: Int64) -> DWWebImageError {
        DWWebImageError(.tooLarge, "SVG refused before rendering: \(reason)", size: size, limit: limit)
    }

    /// 10005: an SVG with `count` `what` (elements, images…), over the guard's `cap`. Any thread.
    static func svgOverCap(_ what: String, _ count: Int, _ cap: Int) -> DWWebImageError {
        svgRefused("\(what) over the cap of \(cap)", size: Int64(count), limit: Int64(cap))
    }

    /// 10005: an SVG's `what` ("SVG size", "SVG rendered at") of `width`×`height` is over libvips' `maxSide` per
    /// side. Any thread.
    static func overLibvipsSide(_ what: String, _ width: Int, _ height: Int, maxSide: Int) -> DWWebImageError {
        DWWebImageError(
            .tooLarge, "\(what) \(width)×\(height) is over libvips' limit of \(maxSide) per side",
            size: Int64(max(width, height)), limit: Int64(maxSide))
    }

    /// 10005: `what` (a helper's work) was stopped `after` a time (and why); `size` and `limit` in seconds when
    /// known. Any thread.
    static func stopped(_ what: String, after: String, size: Int64? = nil, limit: Int64? = nil) -> DWWebImageError {
        DWWebImageError(.tooLarge, "\(what) was stopped after \(after)", size: size, limit: limit)
    }

    /// 10005: the SVG helper was stopped `after` a time (and why); `size` and `limit` in seconds when known.
    /// Any thread.
    static func svgStopped(after: String, size: Int64? = nil, limit: Int64? = nil) -> DWWebImageError {
        stopped("SVG rendering", after: after, size: size, limit: limit)
    }

    /// 10000: no SVG can be rendered here: `why` (the helper is missing, a socket cannot be made). Any thread.
    static func cannotRenderSVG(_ why: String) -> DWWebImageError {
        DWWebImageError(.notAnImage, "cannot render SVG: \(why)")
    }
}
