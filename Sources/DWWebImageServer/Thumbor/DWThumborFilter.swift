// DWThumborFilter: one of thumbor's filters (`filters:NAME(ARGS):…`), its arguments checked as thumbor's regexes
// check them.
import DWImageTransform
import DWWebImage

/// A thumbor filter the server serves, with its arguments parsed. An unknown name or an argument thumbor's own
/// regex would not accept is a 400 naming the filter (thumbor ignores both silently). A plain value.
enum DWThumborFilter: Sendable, Equatable {
    case quality(Int)
    case format(DWImageFormat)
    case maxBytes(Int)
    case stripEXIF, stripICC
    case noUpscale, upscale, stretch
    case proportion(Double)
    case grayscale, equalize
    case brightness(Int), contrast(Int)
    case rgb(Int, Int, Int)
    case roundCorner(Int, Int, DWColor, transparent: Bool)
    case colorize(Int, Int, Int, DWColor)
    case convolution([Double], columns: Int)
    case saturation(Double)
    case blur(radius: Int, sigma: Double)
    case backgroundColor(DWColor)
    /// `fill(colour|transparent|auto|blur[, fill_transparent])`.
    case fill(DWLetterboxFill, fillTransparent: Bool)
    case maxAge(Int)
    case rotate(Int)
    /// `focal(LxT:RxB)`: a rectangle of the source to keep in the crop.
    case focal(left: Int, top: Int, right: Int, bottom: Int)
    /// `sharpen(amount,radius,luminance_only)`: thumbor's wavelet sharpen.
    case sharpen(amount: Double, radius: Double, luminanceOnly: Bool)
    /// `noise(amount[,seed])`: seed 0 is thumbor's unseeded generator.
    case noise(amount: Int, seed: Int)
    /// `curve(ALL,R,G,B)`: each curve its points flattened (`x0, y0, x1, y1, …`).
    case curve(all: [Int], red: [Int], green: [Int], blue: [Int])
    /// `autojpg([enabled])`: thumbor's AUTO_PNG_TO_JPG for this request.
    case autoJPG(Bool)
    /// `extract_focal()`: the image part is a thumbor URL with a manual crop; that crop is the focal point.
    case extractFocal
    /// `watermark(url, x, y, alpha[, w_ratio[, h_ratio]])`: an image from an allowed host drawn over the result.
    case watermark(DWThumborWatermark)

    typealias ParseError = DWProxyURL.ParseError

    /// The filters of `text` (the part after `filters:`, split at `):` as thumbor splits it), in order.
    static func list(_ text: String) throws(ParseError) -> [DWThumborFilter] {
        guard !text.isEmpty else { return [] }
        let pieces = text.components(separatedBy: "):")
        var filters: [DWThumborFilter] = []
        for (index, piece) in pieces.enumerated() {
            let call = index == pieces.count - 1 ? piece : piece + ")"
            filters.append(try parse(call))
        }
        return filters
    }

    /// One `NAME(ARGS)`.
    static func parse(_ call: String) throws(ParseError) -> DWThumborFilter {
        guard let open = call.firstIndex(of: "("), call.hasSuffix(")") else {
            throw ParseError("thumbor filter '\(call)' is not NAME(ARGS)")
        }
        let name = String(call[..<open])
        let inside = call[call.index(after: open)..<call.index(before: call.endIndex)]
        if name == "curve" { return try curve(String(inside)) }
        let args =
            inside.isEmpty
            ? []
            : inside.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
        let reader = Args(name: name, args: args)
        switch name {
        case "quality":
            try reader.count(1)
            return .quality(min(100, max(1, try reader.unsigned(0))))
        case "format":
            try reader.count(1)
            guard let format = Self.format(args[0].lowercased()) else { throw reader.bad(0) }
            return .format(format)
        case "max_bytes": try reader.count(1); return .maxBytes(try reader.unsigned(0))
        case "strip_exif": try reader.count(0); return .stripEXIF
        case "strip_icc": try reader.count(0); return .stripICC
        case "no_upscale": try reader.count(0); return .noUpscale
        case "upscale": try reader.count(0); return .upscale
        case "stretch": try reader.count(0); return .stretch
        case "grayscale": try reader.count(0); return .grayscale
        case "equalize": try reader.count(0); return .equalize
        case "proportion":
            try reader.count(1)
            let value = try reader.decimal(0)
            guard value > 0, value <= 1 else { throw reader.bad(0) }
            return .proportion(value)
        case "brightness": try reader.count(1); return .brightness(max(-100, min(100, try reader.integer(0))))
        case "contrast": try reader.count(1); return .contrast(max(-100, min(100, try reader.integer(0))))
        case "rgb":
            try reader.count(3)
            let (r, g, b) = (try reader.integer(0), try reader.integer(1), try reader.integer(2))
            return .rgb(max(-100, min(100, r)), max(-100, min(100, g)), max(-100, min(100, b)))
        case "round_corner": return try roundCorner(reader)
        case "colorize":
            try reader.count(4)
            let (r, g, b) = (try reader.unsigned(0), try reader.unsigned(1), try reader.unsigned(2))
            guard args[3].count == 6, let color = DWColor(hex: args[3]) else { throw reader.bad(3) }
            return .colorize(min(r, 100), min(g, 100), min(b, 100), color)
        case "convolution": return try convolution(reader)
        case "saturation": try reader.count(1); return .saturation(try reader.decimal(0))
        case "blur":
            try reader.count(1, upTo: 2)
            let radius = try reader.unsigned(0)
            guard radius > 0 else { throw reader.bad(0) }
            var sigma = 0.0
            if args.count > 1 { sigma = try reader.decimal(1) }
            // thumbor cuts its kernel at the radius (≤ 150): a wider sigma blurs no further than one of the radius.
            return .blur(radius: min(radius, 150), sigma: min(abs(sigma), Double(min(radius, 150))))
        case "background_color":
            try reader.count(1)
            guard let color = Self.color(args[0]) else { throw reader.bad(0) }
            return .backgroundColor(color)
        case "fill": return try fill(reader)
        case "max_age": try reader.count(1); return .maxAge(try reader.unsigned(0))
        case "rotate": try reader.count(1); return .rotate(try reader.integer(0))
        case "focal":
            try reader.count(1)
            let numbers = args[0].split(separator: ":", omittingEmptySubsequences: false)
                .flatMap { $0.split(separator: "x", omittingEmptySubsequences: false) }
            guard numbers.count == 4, args[0].filter({ $0 == ":" }).count == 1,
                numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }),
                let l = Int(numbers[0]), let t = Int(numbers[1]), let r = Int(numbers[2]), let b = Int(numbers[3])
            else { throw reader.bad(0) }
            let cap = 10_000_000  // beyond any image; keeps the sums exact
            return .focal(left: min(l, cap), top: min(t, cap), right: min(r, cap), bottom: min(b, cap))
        default:
            if let filter = try byteFilter(reader) { return filter }
            if let filter = try fetchingFilter(reader) { return filter }
            throw ParseError("unknown or unsupported thumbor filter '\(name)'")
        }
    }

    private static func fill(_ reader: Args) throws(ParseError) -> DWThumborFilter {
        try reader.count(1, upTo: 2)
        var transparent = false
        if reader.args.count > 1 { transparent = try reader.boolean(1) }
        switch reader.args[0].lowercased() {
        case "transparent": return .fill(.color(nil), fillTransparent: transparent)
        case "auto": return .fill(.mean, fillTransparent: transparent)
        case "blur": return .fill(.blur, fillTransparent: transparent)
        default:
            guard let color = Self.color(reader.args[0]) else { throw reader.bad(0) }
            return .fill(.color(color), fillTransparent: transparent)
        }
    }

    /// `round_corner(A[|B], R, G, B[, transparent])`: the radii, then the corners' colour (thumbor's byte values).
    private static func roundCorner(_ reader: Args) throws(ParseError) -> DWThumborFilter {
        try reader.count(4, upTo: 5)
        let radii = reader.args[0].split(separator: "|", omittingEmptySubsequences: false)
        guard (1...2).contains(radii.count),
            radii.allSatisfy({ !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }),
            let a = Int(radii[0]), let b = Int(radii.last ?? radii[0])
        else { throw reader.bad(0) }
        let (red, green, blue) = (try reader.unsigned(1), try reader.unsigned(2), try reader.unsigned(3))
        var transparent = false
        if reader.args.count > 4 { transparent = try reader.boolean(4) }
        let color = DWColor(red: UInt8(red & 0xFF), green: UInt8(green & 0xFF), blue: UInt8(blue & 0xFF))
        return .roundCorner(a, b, color, transparent: transparent)
    }

    /// `convolution(M;M;…, COLUMNS[, NORMALIZE])`: odd sides (thumbor refuses others), normalised by the sum
    /// unless `false` (a sum of 0 is left as it is).
    private static func convolution(_ reader: Args) throws(ParseError) -> DWThumborFilter {
        try reader.count(2, upTo: 3)
        let items = reader.args[0].split(separator: ";", omittingEmptySubsequences: false).map { Double($0) }
        let columns = try reader.unsigned(1)
        guard items.allSatisfy({ $0?.isFinite == true }), items.count <= 625 else { throw reader.bad(0) }
        var matrix = items.compactMap { $0 }
        guard columns > 0, matrix.count % columns == 0, matrix.count % 2 == 1, (matrix.count / columns) % 2 == 1
        else { throw reader.bad(1) }
        var normalize = true
        if reader.args.count > 2 { normalize = try reader.boolean(2) }
        let sum = matrix.reduce(0, +)
        if normalize, sum != 0 { matrix = matrix.map { $0 / sum } }
        return .convolution(matrix, columns: columns)
    }

    /// thumbor's format names (`heif` and `heic` alike).
    static func format(_ name: String) -> DWImageFormat? {
        switch name {
        case "jpeg", "jpg": .jpeg
        case "png": .png
        case "gif": .gif
        case "webp": .webp
        case "avif": .avif
        case "heic", "heif": .heic
        default: nil
        }
    }

    /// A colour as thumbor's filters take it: `RRGGBB`/`RGB` hex (no `#`) or one of the common CSS names.
    static func color(_ text: String) -> DWColor? {
        let names: [String: String] = [
            "white": "ffffff", "black": "000000", "red": "ff0000", "green": "008000", "blue": "0000ff",
            "yellow": "ffff00", "gray": "808080", "grey": "808080", "silver": "c0c0c0", "orange": "ffa500",
            "purple": "800080", "lime": "00ff00", "navy": "000080", "teal": "008080", "maroon": "800000",
            "olive": "808000", "aqua": "00ffff", "cyan": "00ffff", "fuchsia": "ff00ff", "magenta": "ff00ff"
        ]
        return DWColor(hex: names[text.lowercased()] ?? text)
    }

    /// A filter's argument list, read by thumbor's argument types.
    struct Args {
        let name: String
        let args: [String]

        func bad(_ index: Int) -> ParseError {
            ParseError("thumbor filter '\(name)': bad argument '\(args[index])'")
        }

        func count(_ least: Int, upTo most: Int? = nil) throws(ParseError) {
            guard args.count >= least, args.count <= (most ?? least) else {
                let range = least == (most ?? least) ? "\(least)" : "\(least)-\(most ?? least)"
                throw ParseError("thumbor filter '\(name)' takes \(range) arguments, not \(args.count)")
            }
        }

        /// thumbor's PositiveNumber: digits only.
        func unsigned(_ index: Int) throws(ParseError) -> Int {
            guard !args[index].isEmpty, args[index].allSatisfy({ ("0"..."9").contains($0) }) else { throw bad(index) }
            return Int(args[index]) ?? Int.max
        }

        /// thumbor's Number: an optional minus, digits.
        func integer(_ index: Int) throws(ParseError) -> Int {
            let text = args[index], negative = text.hasPrefix("-")
            let digits = negative ? text.dropFirst() : Substring(text)
            guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(digits) else {
                throw bad(index)
            }
            return negative ? -value : value
        }

        /// thumbor's DecimalNumber: an optional minus, digits with at most one ".".
        func decimal(_ index: Int) throws(ParseError) -> Double {
            let text = args[index]
            let body = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
            guard body.contains(where: { ("0"..."9").contains($0) }),
                body.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }),
                body.filter({ $0 == "." }).count <= 1, let value = Double(text)
            else { throw bad(index) }
            return value
        }

        /// thumbor's Boolean: `true`, `True`, `1` are true; `false`, `False`, `0` false.
        func boolean(_ index: Int) throws(ParseError) -> Bool {
            switch args[index] {
            case "true", "True", "1": return true
            case "false", "False", "0": return false
            default: throw bad(index)
            }
        }
    }
}
