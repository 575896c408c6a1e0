// JSONText: a string as a JSON string literal, for the package's hand-written JSON lines (dwfetch --json, serve's
// logs).
import Foundation

/// JSON string quoting (RFC 8259): quotes, backslashes and control characters escaped, everything else as is. Pure.
package enum JSONText {
    /// `text` as a JSON string literal, quotes included.
    package static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
