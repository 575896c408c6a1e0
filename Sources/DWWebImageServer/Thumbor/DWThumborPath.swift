// DWThumborPath: the parts of a thumbor path after its signature segment, found as thumbor's URL regex finds them.
import DWImageTransform

/// One thumbor path, split into its parts exactly as thumbor's (libthumbor's) URL regex matches them: each part is
/// optional and tried in this order, and the first segment that is none of them starts the image:
/// ```
/// [meta/][trim[:top-left|:bottom-right][:N]/][AxB:CxD/][adaptive-][full-]fit-in/][-][W|orig]x[-][H|orig]/
/// [left|center|right/][top|middle|bottom/][smart/][filters:NAME(ARGS)[:NAME(ARGS)…]/]IMAGE
/// ```
/// The filters part runs to the first `)/` (its arguments may hold "/"). A plain value.
struct DWThumborPath: Sendable, Equatable {
    /// A box side: a number of pixels (0: follow the other side), or `orig` (the source's).
    enum Side: Sendable, Equatable {
        case pixels(Int)
        case orig
    }

    /// `debug`: thumbor draws its focal points (not served).
    var debug = false
    var meta = false
    /// `trim`: nil off; the corner whose colour is the border's, and the tolerance.
    var trim: (corner: String, tolerance: Int)?
    /// `AxB:CxD`: left, top, right, bottom.
    var crop: (left: Int, top: Int, right: Int, bottom: Int)?
    var fitIn = false, adaptive = false, full = false
    var width = Side.pixels(0), height = Side.pixels(0)
    var flipHorizontal = false, flipVertical = false
    var halign = "center", valign = "middle"
    var smart = false
    /// The filters part without `filters:` ("" when absent).
    var filters = ""
    /// The image part as received (percent-encoding untouched).
    var image = ""

    static func == (a: Self, b: Self) -> Bool {
        a.debug == b.debug && a.meta == b.meta && a.trim?.corner == b.trim?.corner
            && a.trim?.tolerance == b.trim?.tolerance
            && a.crop.map { [$0.left, $0.top, $0.right, $0.bottom] }
                == b.crop.map { [$0.left, $0.top, $0.right, $0.bottom] }
            && a.fitIn == b.fitIn && a.adaptive == b.adaptive && a.full == b.full && a.width == b.width
            && a.height == b.height && a.flipHorizontal == b.flipHorizontal && a.flipVertical == b.flipVertical
            && a.halign == b.halign && a.valign == b.valign && a.smart == b.smart && a.filters == b.filters
            && a.image == b.image
    }

    /// Splits `rest` (the path after "/{signature}/", no query); nil when no image part is left.
    init?(_ rest: Substring) {
        var rest = rest
        func take(_ match: (Substring) -> Bool) -> Substring? {
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            let segment = rest[..<slash]
            guard match(segment) else { return nil }
            rest = rest[rest.index(after: slash)...]
            return segment
        }
        debug = take { $0 == "debug" } != nil
        meta = take { $0 == "meta" } != nil
        if let segment = take(Self.isTrim) { trim = Self.trim(segment) }
        if let segment = take({ Self.crop($0) != nil }) { crop = Self.crop(segment) }
        if let segment = take(Self.isFitIn) {
            (fitIn, adaptive, full) = (true, segment.hasPrefix("adaptive-"), segment.contains("full-"))
        }
        if let segment = take({ Self.dimensions($0) != nil }), let d = Self.dimensions(segment) {
            (flipHorizontal, width, flipVertical, height) = d
        }
        if let segment = take({ ["left", "right", "center"].contains($0) }) { halign = String(segment) }
        if let segment = take({ ["top", "bottom", "middle"].contains($0) }) { valign = String(segment) }
        smart = take { $0 == "smart" } != nil
        if rest.hasPrefix("filters:"), let end = rest.firstRange(of: ")/") {
            filters = String(rest[rest.index(rest.startIndex, offsetBy: 8)..<rest.index(after: end.lowerBound)])
            rest = rest[end.upperBound...]
        }
        guard !rest.isEmpty else { return nil }
        image = String(rest)
    }

    private static func isDigits(_ text: Substring) -> Bool { !text.isEmpty && text.allSatisfy(\.isASCIIDigit) }

    /// `trim`, `trim:top-left`, `trim:bottom-right`, each optionally followed by `:N`.
    private static func isTrim(_ segment: Substring) -> Bool {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.first == "trim", parts.count <= 3 else { return false }
        switch parts.count {
        case 1: return true
        case 2: return parts[1] == "top-left" || parts[1] == "bottom-right" || isDigits(parts[1])
        default: return (parts[1] == "top-left" || parts[1] == "bottom-right") && isDigits(parts[2])
        }
    }

    /// thumbor's reading (its context.py): the second part is the corner whatever it holds (so `trim:10` names the
    /// corner "10", which thumbor treats as bottom-right, with tolerance 0); the third is the tolerance.
    private static func trim(_ segment: Substring) -> (String, Int) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
        let corner = parts.count > 1 ? String(parts[1]) : "top-left"
        let tolerance = parts.count > 2 ? Int(parts[2]) ?? Int.max : 0
        return (corner == "top-left" ? corner : "bottom-right", tolerance)
    }

    /// `AxB:CxD`, four unsigned integers.
    private static func crop(_ segment: Substring) -> (Int, Int, Int, Int)? {
        let corners = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard corners.count == 2 else { return nil }
        let numbers = corners.flatMap { $0.split(separator: "x", omittingEmptySubsequences: false) }
        guard numbers.count == 4, numbers.allSatisfy(isDigits) else { return nil }
        // Held to 10⁷ (beyond any image: the crop is clamped to it), so no arithmetic on them can overflow.
        let values = numbers.map { min(Int($0) ?? Int.max, 10_000_000) }
        return (values[0], values[1], values[2], values[3])
    }

    private static func isFitIn(_ segment: Substring) -> Bool {
        ["fit-in", "full-fit-in", "adaptive-fit-in", "adaptive-full-fit-in"].contains(segment)
    }

    /// `[-][W|orig]x[-][H|orig]`: flip, width, flip, height.
    private static func dimensions(_ segment: Substring) -> (Bool, Side, Bool, Side)? {
        guard let x = segment.firstIndex(of: "x") else { return nil }
        guard let (flipW, width) = side(segment[..<x]), let (flipH, height) = side(segment[segment.index(after: x)...])
        else { return nil }
        return (flipW, width, flipH, height)
    }

    private static func side(_ text: Substring) -> (Bool, Side)? {
        let flip = text.hasPrefix("-")
        let value = flip ? text.dropFirst() : text
        if value.isEmpty { return (flip, .pixels(0)) }
        if value == "orig" { return (flip, .orig) }
        guard isDigits(value) else { return nil }
        return (flip, .pixels(Int(value) ?? Int.max))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
