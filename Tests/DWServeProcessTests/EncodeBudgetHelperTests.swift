// `dwfetch serve --encode-budget`: the put-off encode is saved in the encode helper process at SCHED_IDLE, and a
// helper that dies takes nothing with it but its own encode.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class EncodeBudgetHelperTests: ServeTestCase {
    /// The server's encode helper (its child started with the helper's argument) and its scheduling policy, field
    /// 41 of `/proc/PID/stat`; nil while it has none.
    private static func encodeHelper(of server: pid_t) -> (pid: pid_t, policy: Int)? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry),
                let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
                String(decoding: cmdline, as: UTF8.self).contains("--dwwebimage-idle-encode"),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After the command's ")": state is field 3, ppid 4, policy 41.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 38, pid_t(fields[1]) == server, let policy = Int(fields[38]) else { continue }
            return (pid, policy)
        }
        return nil
    }

    /// The soft and hard `RLIMIT_CORE` of `pid`, from `/proc/PID/limits` ("Max core file size  0  0  bytes").
    private static func coreLimits(of pid: pid_t) -> [String] {
        let limits = (try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)) ?? ""
        let line = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") } ?? ""
        return line.split(separator: " ").dropFirst(4).prefix(2).map(String.init)
    }

    private func count(_ server: ServeProcess, _ outcome: String) throws -> Double {
        try server.metric("dwserve_background_encodes_total{outcome=\"\(outcome)\"}")
    }

    /// A 1600×1200 AVIF at speed 4 (a second or more of CPU): the helper is caught while it encodes, found at
    /// SCHED_IDLE by the kernel's own account, and killed. The put-off encode counts `failed` and stores nothing;
    /// the next request for the variant is the stand-in again and starts the encode again, which lands, saved at
    /// SCHED_IDLE by the server's own count.
    func testThePutOffEncodeRunsInAnIdleHelperAndAKilledOneIsMadeAgain() throws {
        origin.setRoute("/k.png", .ok(SampleImages.png(width: 1600, height: 1200, seed: 8)))
        let server = try serve(EncodeBudgetTests.negotiating + ["--encode-budget", "1"])
        let path = ProxyPath.plain(origin.url("/k.png"))
        let first = try server.get(path, headers: EncodeBudgetTests.accept)
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertEqual(first.header("Content-Type"), "image/webp", "the stand-in")
        var helper: (pid: pid_t, policy: Int)?
        XCTAssertTrue(
            eventually(timeout: 60, interval: 0.005) {
                helper = Self.encodeHelper(of: server.process.processIdentifier)
                return helper != nil
            }, "the put-off encode runs in the helper")
        let caught = try XCTUnwrap(helper)
        XCTAssertEqual(caught.policy, 5, "SCHED_IDLE")
        XCTAssertTrue(
            eventually(timeout: 3) { Self.coreLimits(of: caught.pid) == ["0", "0"] },
            "no core file: \(Self.coreLimits(of: caught.pid))")
        XCTAssertEqual(kill(caught.pid, SIGKILL), 0)
        XCTAssertTrue(try eventually(timeout: 60) { try count(server, "failed") == 1 }, server.stderr)
        XCTAssertEqual(try count(server, "stored"), 0, "nothing half-made is kept")
        XCTAssertEqual(try server.metric("dwserve_background_encode_helpers_total{policy=\"idle\"}"), 0)

        let again = try server.get(path, headers: EncodeBudgetTests.accept)
        XCTAssertEqual(again.status, 200, again.text)
        XCTAssertEqual(again.header("Content-Type"), "image/webp", "the stand-in again")
        XCTAssertEqual(again.header("Cache-Control"), "public, max-age=60")
        XCTAssertTrue(try eventually(timeout: 120) { try count(server, "stored") == 1 }, server.stderr)
        XCTAssertEqual(try count(server, "started"), 2, "the encode started again")
        XCTAssertEqual(try server.metric("dwserve_background_encode_helpers_total{policy=\"idle\"}"), 1)
        let made = try server.get(path, headers: EncodeBudgetTests.accept)
        XCTAssertEqual(made.status, 200)
        XCTAssertEqual(made.header("Content-Type"), "image/avif", "the AVIF, once made")
    }
}
