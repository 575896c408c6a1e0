// Tmux: a private tmux server (its own socket) running one command in a pane of a fixed size, read back with
// capture-pane -e — a real terminal emulator between dwfetch and the test.
import Foundation
import XCTest

final class Tmux {
    static let binary = "/usr/bin/tmux"
    let socket: String
    let dir: URL

    /// Starts `command` (run by bash) in a detached `columns` × `rows` session; the pane stays after it exits.
    init(command: String, columns: Int = 80, rows: Int = 40) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw XCTSkip("tmux is missing (Debian tmux; scripts/setup.sh installs it)")
        }
        socket = "dwpreview-\(getpid())-\(UUID().uuidString.prefix(8))"
        dir = FileManager.default.temporaryDirectory.appendingPathComponent(socket)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let conf = dir.appendingPathComponent("tmux.conf")
        try "set -g remain-on-exit on\nset -g history-limit 0\n".write(to: conf, atomically: true, encoding: .utf8)
        let script = dir.appendingPathComponent("run.sh")
        try ("#!/bin/bash\n" + command + "\n").write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        // The server this starts keeps the client's stdout: read nothing from it (no EOF would ever come).
        _ = try run(["-f", conf.path, "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", script.path], capture: false)
    }

    deinit {
        _ = try? run(["kill-server"])
        try? FileManager.default.removeItem(at: dir)
    }

    /// Runs `tmux -L socket args` and returns its stdout.
    @discardableResult
    func run(_ args: [String], capture: Bool = true) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["-L", socket] + args
        var env = ProcessInfo.processInfo.environment
        env["TMUX"] = nil
        process.environment = env
        let out = Pipe()
        process.standardOutput = capture ? out : FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = capture ? out.fileHandleForReading.readDataToEndOfFile() : Data()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// A tmux format string evaluated for the pane.
    func display(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", "0", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The visible pane with colours and attributes as SGR sequences.
    func capture() throws -> String { try run(["capture-pane", "-e", "-p", "-t", "0"]) }

    /// Waits (polling, up to `timeout`) until `condition` holds; false if it never did.
    func wait(timeout: TimeInterval, until condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }

    /// Waits until the pane's command has exited.
    func waitForExit(timeout: TimeInterval = 60) throws -> Bool {
        try wait(timeout: timeout) { try display("#{pane_dead}") == "1" }
    }
}

/// The built `dwfetch`, beside the test bundle.
enum DWFetchBinary {
    static var path: String? {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for dir in [bundle, bundle.deletingLastPathComponent()] {
            let candidate = dir.appendingPathComponent("dwfetch")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
        }
        let beside = Bundle(for: Tmux.self).bundleURL.deletingLastPathComponent().appendingPathComponent("dwfetch")
        return FileManager.default.isExecutableFile(atPath: beside.path) ? beside.path : nil
    }

    static func require() throws -> String {
        guard let path else { throw XCTSkip("dwfetch is not built; run scripts/test.sh (it builds every product)") }
        return path
    }
}
