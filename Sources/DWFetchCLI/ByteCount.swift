// ByteCount: sizes on the command line as curl takes them — bytes, or a number with K, M, G or T (powers of 1024).
import ArgumentParser
import Foundation

/// A byte count given as `1048576`, `512K`, `10M`, `1.5G` or `2T` (case-insensitive; K = 1024, as curl's
/// `--max-filesize` and `--limit-rate`); a trailing `B` or `iB` is allowed (`10MiB`).
package struct ByteCount: ExpressibleByArgument, Equatable, Sendable {
    package let bytes: Int64

    package init(bytes: Int64) { self.bytes = bytes }

    /// How `--help` shows a default: whole MiB or KiB where exact, else bytes.
    package var defaultValueDescription: String {
        if bytes > 0 && bytes % (1 << 20) == 0 { return "\(bytes >> 20)M" }
        if bytes > 0 && bytes % (1 << 10) == 0 { return "\(bytes >> 10)K" }
        return "\(bytes)"
    }

    package init?(argument: String) {
        guard let bytes = Self.parse(argument) else { return nil }
        self.bytes = bytes
    }

    package static func parse(_ text: String) -> Int64? {
        var s = text.trimmingCharacters(in: .whitespaces).lowercased()[...]
        if s.hasSuffix("ib") { s = s.dropLast(2) } else if s.hasSuffix("b") { s = s.dropLast() }
        var multiplier: Double = 1
        if let unit = s.last, let power = ["k": 1, "m": 2, "g": 3, "t": 4][String(unit)] {
            multiplier = Double(Int64(1) << (10 * power))
            s = s.dropLast()
        }
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            s.filter({ $0 == "." }).count <= 1,
            let number = Double(s)
        else { return nil }
        let value = (number * multiplier).rounded(.down)
        guard value.isFinite, value >= 0, value < 9.2e18 else { return nil }
        return Int64(value)
    }
}
