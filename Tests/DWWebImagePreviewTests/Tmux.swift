// Tmux: a private tmux server (its own socket) running one command in a pane of a fixed size, read back with
// capture-pane -e — a real terminal emulator between dwfetch and the test.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class Tmux {
    static let binary = "/usr/bin/tmux"
    let socket: String
    let dir: URL

    /// Starts `command` (run by bash) in a detached `columns` × `rows` session.
    init(command: String, columns: Int = 80, rows: Int = 40) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw MissingPrerequisite("tmux is missing (Debian tmux; scripts/setup.sh installs it)")
        }
        socket = "dwpreview-\(getpid())-\(UUID().uuidString.prefix(8))"
        dir = FileManager.default.temporaryDirectory.appendingPathComponent(socket)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let conf = dir.appendingPathComponent("tmux.conf")
        try "set -g status off\n".write(to: conf, atomically: true, encoding: .utf8)
        let script = dir.appendingPathComponent("run.sh")
        try ("#!/bin/bash\n" + command + "\n").write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        try run(["-f", conf.path, "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", script.path])
    }

    deinit {
        _ = try? run(["kill-server"])
        try? FileManager.default.removeItem(at: dir)
    }

    /// Runs `tmux -L socket args` and returns its stdout. posix_spawn, not Foundation's Process: the first call
    /// forks the tmux server, which would keep Process's exit-watch descriptor open, so waitUntilExit never returns.
    @discardableResult
    func run(_ args: [String]) throws -> String {
        let out = dir.appendingPathComponent("out-\(UUID().uuidString)")
        defer { unlink(out.path) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([Self.binary, "-L", socket] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env =
            ProcessInfo.processInfo.environment.filter { $0.key != "TMUX" }.map { strdup("\($0.key)=\($0.value)") } + [
                nil
            ]
        defer { env.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, Self.binary, &actions, nil, argv, env)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (try? String(contentsOf: out, encoding: .utf8)) ?? ""
    }

    /// A tmux format string evaluated for the pane.
    func display(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", "0", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The pane from the start of its history, with colours and attributes as SGR sequences (a detached session
    /// may start smaller and scroll its first lines into the history).
    /// Trailing spaces are kept (-N): a picture's last cells are coloured spaces.
    func capture() throws -> String { try run(["capture-pane", "-e", "-N", "-p", "-S", "-", "-t", "0"]) }

    /// Waits (polling, up to `timeout`) until `condition` holds; false if it never did.
    func wait(timeout: TimeInterval, until condition: () throws -> Bool) rethrows -> Bool {
        try eventually(timeout: timeout, interval: 0.05, condition)
    }
}
