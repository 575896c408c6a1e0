// ServeEnvironment: imgproxy's IMGPROXY_* configuration read from the environment as `dwfetch serve` flags.
import Foundation

/// Reads a container's `IMGPROXY_*` variables as imgproxy reads them — its names, value syntax and meaning — and
/// turns each into the `dwfetch serve` flags that do the same, placed before the command line's own so a flag given
/// on the command line wins (a variable whose flag the command line gives is not read at all). A variable serve
/// recognises but cannot honour, with a value other than imgproxy's default, and a value that does not parse, are
/// start-up errors naming the variable (imgproxy 4's rule: never silently ignored); an unknown `IMGPROXY_*` is a
/// warning. `IMGPROXY_KEY` and `IMGPROXY_SALT` are read where the keys are assembled (comma lists, paired). Pure,
/// called once on the main thread before the arguments are parsed.
package enum ServeEnvironment {
    /// What the environment adds: the flags, and warnings for stderr.
    package struct Translation: Equatable {
        package var flags: [String] = []
        package var warnings: [String] = []
    }

    /// A variable that does not parse or cannot be honoured.
    package struct Failure: Error, CustomStringConvertible, Equatable {
        package let variable: String
        package let reason: String
        package var description: String { "\(variable): \(reason)" }
    }

    /// The flags `environment` stands for, given the command line's `arguments` (after `serve`).
    package static func translate(_ environment: [String: String], arguments: [String]) throws(Failure)
        -> Translation
    {
        var out = Translation()
        for name in environment.keys.sorted() where name.hasPrefix("IMGPROXY_") {
            let variable = String(name.dropFirst("IMGPROXY_".count))
            let value = environment[name] ?? ""
            guard let rule = rules[variable] else {
                out.warnings.append("unknown \(name) ignored")
                continue
            }
            if let flag = rule.flag, Self.gives(arguments, flag) { continue }  // the command line wins
            out.flags += try rule.flags(name, value)
        }
        return out
    }

    /// `IMGPROXY_NAME → --flag` lines for `--help`, one per variable serve honours.
    package static var helpLines: [String] {
        rules.keys.sorted().compactMap { name in
            guard let flag = rules[name]?.flag else { return nil }
            return "IMGPROXY_\(name) → \(flag)"
        }
    }

    /// Whether the command line gives `flag` (`--flag`, `--flag=…`).
    private static func gives(_ arguments: [String], _ flag: String) -> Bool {
        arguments.contains { $0 == flag || $0.hasPrefix(flag + "=") }
    }

    /// How one variable becomes flags.
    struct Rule: Sendable {
        /// The flag it sets (nil: read elsewhere, or not honoured).
        let flag: String?
        let flags: @Sendable (_ name: String, _ value: String) throws(Failure) -> [String]
    }

    // MARK: - Value syntax (Go's strconv, as imgproxy parses)

    static func bool(_ name: String, _ value: String) throws(Failure) -> Bool {
        switch value {
        case "1", "t", "T", "TRUE", "true", "True": return true
        case "0", "f", "F", "FALSE", "false", "False": return false
        default: throw Failure(variable: name, reason: "'\(value)' is not a boolean (true or false)")
        }
    }

    static func int(_ name: String, _ value: String) throws(Failure) -> Int {
        guard let number = Int(value.trimmingCharacters(in: .whitespaces)) else {
            throw Failure(variable: name, reason: "'\(value)' is not an integer")
        }
        return number
    }

    static func number(_ name: String, _ value: String) throws(Failure) -> Double {
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number.isFinite else {
            throw Failure(variable: name, reason: "'\(value)' is not a number")
        }
        return number
    }

    /// Standard base64 (padding optional; spaces and line breaks, as `base64` wraps its output, skipped).
    package static func decodeBase64(_ value: String) -> Data? {
        var text = value.filter { !$0.isWhitespace }
        while text.count % 4 != 0 { text += "=" }
        return text.isEmpty ? nil : Data(base64Encoded: text)
    }

    /// A comma-separated list, items trimmed, empty ones dropped.
    package static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
