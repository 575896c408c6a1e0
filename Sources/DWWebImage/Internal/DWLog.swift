// DWLog: the library's few log lines (cache I/O failures; resume decisions with DWWEBIMAGE_LOG=debug), to stderr.
import DWFileIO
import Foundation

/// Minimal logging: warnings go to stderr unless `DWWEBIMAGE_LOG=0`; debug lines only with `DWWEBIMAGE_LOG=debug`.
enum DWLog {
    private static let enabled = ProcessInfo.processInfo.environment["DWWEBIMAGE_LOG"] != "0"
    private static let debugEnabled = ProcessInfo.processInfo.environment["DWWEBIMAGE_LOG"] == "debug"

    static func debug(_ message: @autoclosure () -> String) {
        guard debugEnabled else { return }
        StandardStream.error.write("DWWebImage: \(message())\n")
    }

    static func warning(_ message: @autoclosure () -> String) {
        guard enabled else { return }
        StandardStream.error.write("DWWebImage: \(message())\n")
    }
}
