// ProgressView: a live multi-line progress display on stderr (only when stderr is a terminal), like aria2c's.
import DWWebImage
import DWFileIO
import Foundation
import DWLocking

/// Overall bar (files, bytes, rate, ETA) plus one line per active transfer, redrawn ten times a second and
/// cleared at the end. Uses colour unless `NO_COLOR` is set.
final class ProgressView: Sendable {
    private struct Transfer {
        var received: Int64 = 0
        var expected: Int64 = -1
    }
    private struct State {
        var total = 0
        var done = 0
        var failed = 0
        var bytes: Int64 = 0
        var active: [(url: String, transfer: Transfer)] = []
        var linesOnScreen = 0
        var started = Date()
    }
    private let state = DWLock(State())
    // DispatchSourceTimer is thread-safe but not declared Sendable; it is only scheduled, resumed and cancelled.
    nonisolated(unsafe) private let timer = DispatchSource.makeTimerSource(
        queue: DispatchQueue(label: "dwfetch.progress"))
    private let color = ProcessInfo.processInfo.environment["NO_COLOR"].map { $0.isEmpty } ?? true
    private let width: Int = {
        var size = winsize()
        return ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 20 ? Int(size.ws_col) : 80
    }()

    func begin(total: Int) {
        state.withLock {
            $0.total = total
            $0.started = Date()
        }
        timer.schedule(deadline: .now(), repeating: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.redraw() }
        timer.resume()
    }

    func started(_ url: String) {
        state.withLock { $0.active.append((url, Transfer())) }
    }

    func update(_ url: String, received: Int64, expected: Int64) {
        state.withLock { s in
            if let i = s.active.firstIndex(where: { $0.url == url }) {
                s.active[i].transfer = Transfer(received: received, expected: expected)
            }
        }
    }

    func finished(_ url: String, bytes: Int, ok: Bool) {
        state.withLock { s in
            s.active.removeAll { $0.url == url }
            s.done += 1
            if !ok { s.failed += 1 }
            s.bytes += Int64(bytes)
        }
    }

    func end() {
        timer.cancel()
        clear()
    }

    /// Erases what is on screen (before printing result lines).
    func clear() {
        let text = state.withLock { s -> String in
            defer { s.linesOnScreen = 0 }
            return s.linesOnScreen > 0 ? "\u{1B}[\(s.linesOnScreen)A\r\u{1B}[J" : ""
        }
        if !text.isEmpty { StandardStream.error.write(text) }
    }

    func redraw() {
        let text = state.withLock { s -> String in
            let elapsed = max(0.001, Date().timeIntervalSince(s.started))
            let inFlight = s.active.reduce(Int64(0)) { $0 + $1.transfer.received }
            let rate = Double(s.bytes + inFlight) / elapsed
            let fraction = s.total > 0 ? Double(s.done) / Double(s.total) : 0
            let eta = fraction > 0 && fraction < 1 ? elapsed / fraction * (1 - fraction) : 0
            let barWidth = max(10, min(30, width - 60))
            let filled = Int(Double(barWidth) * fraction)
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled)
            var lines = [
                String(
                    format: "[%@] %d/%d files  %@  %@/s  ETA %.0fs%@",
                    color ? "\u{1B}[32m\(bar)\u{1B}[0m" : bar, s.done, s.total,
                    OutputFormat.size(s.bytes + inFlight), OutputFormat.size(Int64(rate)), eta,
                    s.failed > 0 ? "  \(s.failed) failed" : "")
            ]
            for (url, t) in s.active.prefix(6) {
                let amount =
                    t.expected > 0
                    ? String(
                        format: "%3.0f%% of %@", Double(t.received) * 100 / Double(t.expected),
                        OutputFormat.size(t.expected))
                    : OutputFormat.size(t.received)
                let room = max(10, width - amount.count - 4)
                let shown = url.count > room ? "…" + url.suffix(room - 1) : url
                lines.append("  \(shown)  \(amount)")
            }
            if s.active.count > 6 { lines.append("  … and \(s.active.count - 6) more") }
            let erase = s.linesOnScreen > 0 ? "\u{1B}[\(s.linesOnScreen)A\r\u{1B}[J" : ""
            s.linesOnScreen = lines.count
            return erase + lines.map { String($0.prefix(width + 12)) }.joined(separator: "\n") + "\n"
        }
        StandardStream.error.write(text)
    }
}
