// DWThumborFilter+Pixels: the filters thumbor runs as C on its pixel bytes (sharpen, noise, curve), and autojpg and
// extract_focal; `curve`'s four lists of points read as thumbor's regex and literal_eval read them.
import Foundation

extension DWThumborFilter {
    /// `sharpen`, `noise`, `autojpg`, `extract_focal` from `reader`; nil for any other name.
    static func byteFilter(_ reader: Args) throws(ParseError) -> DWThumborFilter? {
        let args = reader.args
        switch reader.name {
        case "sharpen":
            try reader.count(3)
            return .sharpen(
                amount: try reader.decimal(0), radius: try reader.decimal(1), luminanceOnly: try reader.boolean(2))
        case "noise":
            try reader.count(1, upTo: 2)
            let amount = try reader.unsigned(0), seed = args.count > 1 ? try reader.unsigned(1) : 0
            // thumbor's C takes both as a C int: a larger one is an error there.
            guard amount <= Int(Int32.max) else { throw reader.bad(0) }
            guard seed <= Int(Int32.max) else { throw reader.bad(1) }
            return .noise(amount: amount, seed: seed)
        case "autojpg":
            try reader.count(0, upTo: 1)
            return .autoJPG(args.isEmpty ? true : try reader.boolean(0))
        case "extract_focal": try reader.count(0); return .extractFocal
        default: return nil
        }
    }

    /// `[(x,y),(x,y),…]` four times, comma-separated. Stricter than thumbor where thumbor's C would read garbage or
    /// divide by zero: each curve needs a point, values are 0…255, and the x strictly increase (a 400 naming the
    /// curve otherwise; thumbor answers those with an error or undefined pixels).
    static func curve(_ inside: String) throws(ParseError) -> DWThumborFilter {
        var text = Substring(inside.trimmingCharacters(in: .whitespaces))  // thumbor's \s* around each argument
        var curves: [[Int]] = []
        let names = ["all", "red", "green", "blue"]
        for index in 0..<4 {
            if index > 0 {
                text = text.drop { $0 == " " }
                guard text.first == "," else { throw ParseError("thumbor filter 'curve' takes 4 curves") }
                text = text.dropFirst().drop { $0 == " " }
            }
            guard text.first == "[", let close = text.firstIndex(of: "]") else {
                throw ParseError("thumbor filter 'curve' takes 4 curves like [(0,0),(255,255)]")
            }
            let body = text[text.index(after: text.startIndex)..<close]
            text = text[text.index(after: close)...]
            guard let points = points(body) else {
                throw ParseError("thumbor filter 'curve': bad \(names[index]) curve '[\(body)]'")
            }
            curves.append(points)
        }
        guard text.isEmpty else { throw ParseError("thumbor filter 'curve' takes 4 curves") }
        return .curve(all: curves[0], red: curves[1], green: curves[2], blue: curves[3])
    }

    /// `(x,y),(x,y)` flattened, or nil.
    private static func points(_ body: Substring) -> [Int]? {
        var flat: [Int] = []
        var rest = body
        while !rest.isEmpty {
            guard rest.first == "(", let close = rest.firstIndex(of: ")") else { return nil }
            let pair = rest[rest.index(after: rest.startIndex)..<close].split(
                separator: ",", omittingEmptySubsequences: false)
            guard pair.count == 2,
                pair.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy { ("0"..."9").contains($0) } }),
                let x = Int(pair[0]), let y = Int(pair[1]), x <= 255, y <= 255
            else { return nil }
            if flat.count >= 2, x <= flat[flat.count - 2] { return nil }
            flat += [x, y]
            rest = rest[rest.index(after: close)...]
            guard rest.isEmpty || rest.first == "," else { return nil }  // literal_eval needs the commas
            rest = rest.dropFirst()  // a trailing comma is allowed, as Python's list syntax allows it
        }
        return flat.isEmpty ? nil : flat
    }
}
