// ArgReader: one option's arguments, read by imgproxy's rules (Go's ParseBool, Atoi, ParseFloat), errors naming it.
import DWImageTransform
import DWWebImage

/// Where a gravity is used: each allows its own types (imgproxy's CropGravityTypes, ExtendGravityTypes,
/// WatermarkGravityTypes).
enum GravityContext {
    case crop, extend, watermark

    func allows(_ kind: DWGravity.Kind) -> Bool {
        switch kind {
        case .smart: self == .crop
        case .focusPoint: self != .watermark
        case .replicate: self == .watermark
        default: true
        }
    }
}

/// The arguments of one option. Plain value.
struct ArgReader {
    let name: String
    let args: [String]

    func error(_ message: String) -> DWProxyURL.ParseError {
        DWProxyURL.ParseError("invalid \(name) option (\(args.joined(separator: ":"))): \(message)")
    }

    func atLeast(_ count: Int) throws(DWProxyURL.ParseError) {
        guard args.count >= count else { throw error("missing arguments") }
    }

    func max(_ count: Int) throws(DWProxyURL.ParseError) {
        guard args.count <= count else { throw error("at most \(count) arguments") }
    }

    /// The arguments from `index` on (at least one, maybe empty).
    func dropping(_ index: Int) -> ArgReader {
        ArgReader(name: name, args: args.count > index ? Array(args[index...]) : [""])
    }

    /// Go's strconv.ParseBool; anything else is false, as imgproxy treats it (with a warning).
    func bool(_ i: Int) -> Bool { ["1", "t", "T", "true", "TRUE", "True"].contains(args[i]) }

    func int(_ i: Int) throws(DWProxyURL.ParseError) -> Int {
        guard let value = Int(args[i]) else { throw error("'\(args[i])' is not an integer") }
        return value
    }

    func intIn(_ i: Int, _ range: ClosedRange<Int>) throws(DWProxyURL.ParseError) -> Int {
        let value = try int(i)
        guard range.contains(value) else { throw error("\(value) is not in \(range.lowerBound)-\(range.upperBound)") }
        return value
    }

    func nonNegativeInt(_ i: Int, upTo limit: Int) throws(DWProxyURL.ParseError) -> Int { try intIn(i, 0...limit) }

    /// A width or height: any integer ≥ 0 (0: auto), as imgproxy's `parseDimension`; the result limits judge the
    /// size it makes (beyond Int32.max it is not a number we keep: malformed).
    func dimension(_ i: Int) throws(DWProxyURL.ParseError) -> Int { try intIn(i, 0...Int(Int32.max)) }

    func double(_ i: Int) throws(DWProxyURL.ParseError) -> Double {
        guard let value = Double(args[i]), value.isFinite, abs(value) < 1e9 else {
            throw error("'\(args[i])' is not a number")
        }
        return value
    }

    func nonNegativeDouble(_ i: Int, upTo limit: Double) throws(DWProxyURL.ParseError) -> Double {
        let value = try double(i)
        guard value >= 0, value <= limit else { throw error("\(args[i]) is not in 0-\(limitText(limit))") }
        return value
    }

    func positiveDouble(_ i: Int) throws(DWProxyURL.ParseError) -> Double {
        let value = try double(i)
        guard value > 0 else { throw error("\(args[i]) is not a positive number") }
        return value
    }

    func resizeMode(_ i: Int) throws(DWProxyURL.ParseError) -> DWResizeMode {
        guard let mode = DWResizeMode(rawValue: args[i]) else {
            throw error("resizing type must be fit, fill, fill-down, force or auto")
        }
        return mode
    }

    func color(_ i: Int) throws(DWProxyURL.ParseError) -> DWColor {
        guard let color = DWColor(hex: args[i]) else { throw error("'\(args[i])' is not a hex colour") }
        return color
    }

    /// An output format the engine writes.
    func format(_ i: Int) throws(DWProxyURL.ParseError) -> DWImageFormat {
        guard let format = DWProxyURL.format(named: args[i][...]) else { throw error("unknown format '\(args[i])'") }
        return format
    }

    /// Any format name imgproxy knows that we read (for `skp`, `fq`).
    func anyFormat(_ i: Int) throws(DWProxyURL.ParseError) -> DWImageFormat {
        let name = args[i].lowercased()
        if let format = DWProxyURL.format(named: name[...]) { return format }
        switch name {
        case "tiff", "tif": return .tiff
        case "heic", "heif": return .heic
        case "bmp": return .bmp
        case "ico": return .ico
        default: throw error("unknown format '\(args[i])'")
        }
    }

    /// `type[:x[:y]]` from argument `start`, by imgproxy's rules for where it is used.
    func gravity(from start: Int, allowed context: GravityContext) throws(DWProxyURL.ParseError) -> DWGravity {
        let a = Array(args[start...])
        guard let kind = DWGravity.Kind(rawValue: a[0]), context.allows(kind) else {
            throw error("unknown gravity '\(a[0])'")
        }
        var gravity = DWGravity(kind)
        switch kind {
        case .smart: guard a.count == 1 else { throw error("sm takes no offsets") }
        case .focusPoint: guard a.count == 3 else { throw error("fp needs x and y") }
        default: guard a.count <= 3 else { throw error("at most two offsets") }
        }
        if a.count > 1, !a[1].isEmpty { gravity.x = try double(start + 1) }
        if a.count > 2, !a[2].isEmpty { gravity.y = try double(start + 2) }
        if kind == .focusPoint, !(0...1).contains(gravity.x) || !(0...1).contains(gravity.y) {
            throw error("focus point coordinates must be 0-1")
        }
        return gravity
    }
}

/// A limit as error messages print it.
private func limitText(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
}
