// TerminalScreen: reads symbols-mode terminal output back into cells (character, foreground, background), the
// way a terminal would for the sequences libchafa emits (SGR colours, resets; other CSI sequences ignored).
import Foundation

struct RGBColor: Equatable, CustomStringConvertible {
    var r: Int, g: Int, b: Int
    var description: String { "(\(r),\(g),\(b))" }
    func isClose(to other: RGBColor, tolerance: Int = 8) -> Bool {
        abs(r - other.r) <= tolerance && abs(g - other.g) <= tolerance && abs(b - other.b) <= tolerance
    }
}

struct TerminalCell {
    var character: Character
    var foreground: RGBColor?
    var background: RGBColor?
    /// The mean of the two colours a mixed cell shows (its solid colour otherwise).
    var meanColor: RGBColor? {
        if let solidColor { return solidColor }
        guard let f = foreground, let b = background else { return foreground ?? background }
        return RGBColor(r: (f.r + b.r) / 2, g: (f.g + b.g) / 2, b: (f.b + b.b) / 2)
    }
    /// The colour the cell shows: the background for a space, the foreground for a full block, nil when mixed.
    var solidColor: RGBColor? {
        switch character {
        case " ": return background
        case "█": return foreground
        default: return foreground == background ? foreground : nil
        }
    }
}

struct TerminalScreen {
    var rows: [[TerminalCell]] = [[]]
    /// Every SGR parameter list seen, in order.
    var sgrs: [[Int]] = []

    init(_ text: String) {
        var fg: RGBColor?, bg: RGBColor?, inverse = false
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == "\u{1B}", i + 1 < scalars.count, scalars[i + 1] == "[" {
                var j = i + 2
                var params = ""
                while j < scalars.count, !(0x40...0x7E).contains(scalars[j].value) {
                    params.unicodeScalars.append(scalars[j]); j += 1
                }
                let final = j < scalars.count ? scalars[j] : "?"
                if final == "m" {
                    let numbers = params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
                    sgrs.append(numbers)
                    var k = 0
                    while k < numbers.count {
                        switch numbers[k] {
                        case 0: fg = nil; bg = nil; inverse = false
                        case 7: inverse = true
                        case 27: inverse = false
                        case 38 where k + 4 < numbers.count && numbers[k + 1] == 2:
                            fg = RGBColor(r: numbers[k + 2], g: numbers[k + 3], b: numbers[k + 4]); k += 4
                        case 48 where k + 4 < numbers.count && numbers[k + 1] == 2:
                            bg = RGBColor(r: numbers[k + 2], g: numbers[k + 3], b: numbers[k + 4]); k += 4
                        case 38, 48: k += 2  // 5;N
                        case 39: fg = nil
                        case 49: bg = nil
                        default: break
                        }
                        k += 1
                    }
                }
                i = j + 1
                continue
            }
            if c == "\u{1B}" { i += 2; continue }  // other two-byte escapes (ESC 7, ESC 8)
            if c == "\n" { rows.append([]); i += 1; continue }
            if c == "\r" { i += 1; continue }
            rows[rows.count - 1].append(
                TerminalCell(
                    character: Character(c), foreground: inverse ? bg : fg,
                    background: inverse ? fg : bg))
            i += 1
        }
        if rows.last?.isEmpty == true, rows.count > 1 { rows.removeLast() }
    }
}
