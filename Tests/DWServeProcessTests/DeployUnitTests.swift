// The systemd unit in deploy/: systemd-analyze accepts it without a single warning (with the built dwfetch as its
// ExecStart), and the command line it runs starts serve on every interface with a key from its environment file.
import DWTestSupport
import Foundation
import XCTest

final class DeployUnitTests: XCTestCase {
    private func unitText() throws -> String {
        try String(contentsOf: SourceTree.url("deploy/dwfetch-serve.service"), encoding: .utf8)
    }

    func testTheSystemdUnitVerifiesWithoutAWarning() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dwunit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let unit = dir.appendingPathComponent("dwfetch-serve.service")
        let text = try unitText().replacingOccurrences(
            of: "/usr/local/bin/dwfetch", with: BuiltBinary.url("dwfetch").path)
        try text.write(to: unit, atomically: true, encoding: .utf8)
        // verify exits 0 on most mistakes (an unknown value is "ignoring"): the test wants no output at all.
        let said = try Subprocess.output(["sh", "-c", "systemd-analyze verify --man=no \"$0\" 2>&1", unit.path])
        XCTAssertEqual(said, "", "systemd-analyze verify has something to say")
        for hardening in [
            "DynamicUser=yes", "ProtectSystem=strict", "StateDirectory=", "NoNewPrivileges=yes",
            "SystemCallFilter=@system-service"
        ] {
            XCTAssertTrue(text.contains(hardening), hardening)
        }
    }

    func testTheUnitsCommandLineStartsServeWithTheKeyFromItsEnvironment() throws {
        let line = try XCTUnwrap(try unitText().split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        var args = Array(line.dropFirst("ExecStart=".count).split(separator: " ").map(String.init).dropFirst(2))
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("dwstate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        for (i, arg) in args.enumerated() {  // free ports for the test; the state directory systemd would make
            if arg == "${STATE_DIRECTORY}" { args[i] = state.path }
            if i > 0 && args[i - 1] == "--port" { args[i] = "0" }
            if i > 0 && args[i - 1] == "--metrics-bind" { args[i] = "127.0.0.1:0" }
        }
        let env = ["IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656c6c6f"]
        let server = try ServeProcess(args, environment: env, cacheDir: state)
        defer { server.stop() }
        XCTAssertEqual(try server.get("/health").status, 200)
        XCTAssertFalse(server.stderr.contains("no signature key"), server.stderr)
    }

    /// A server a test drops without `stop()` does not outlive it: the process is gone once the last reference is.
    func testADroppedServerIsKilled() throws {
        var server: ServeProcess? = try ServeProcess([])
        let pid = try XCTUnwrap(server?.process.processIdentifier)
        XCTAssertEqual(kill(pid, 0), 0, "running")
        server = nil
        XCTAssertEqual(kill(pid, 0), -1, "killed and reaped when dropped")
        XCTAssertEqual(errno, ESRCH)
    }
}
