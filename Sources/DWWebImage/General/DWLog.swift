// DWLog: the library's few log lines (cache I/O failures), to stderr, silenced with DWWEBIMAGE_LOG=0.
import Foundation

/// Minimal logging: warnings go to stderr unless `DWWEBIMAGE_LOG=0`.
enum DWLog {
    private static let enabled = ProcessInfo.processInfo.environment["DWWEBIMAGE_LOG"] != "0"

    static func warning(_ message: @autoclosure () -> String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data("DWWebImage: \(message())\n".utf8))
    }
}
