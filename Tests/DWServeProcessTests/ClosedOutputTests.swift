// A server whose stdout reader goes away (a log shipper restarted, `dwfetch serve -v | head`) keeps answering: its
// log lines are dropped, never a trap on EPIPE.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ClosedOutputTests: XCTestCase {
    func testAServerWhoseStdoutReaderWentAwayKeepsAnswering() throws {
        let origin = try LoopbackHTTPServer()
        defer { origin.shutdown() }
        origin.setRoute("/a.png", .ok(SampleImages.png(width: 32, height: 24)))
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("dwserve-closed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let process = Process()
        process.executableURL = ServeProcess.binary
        process.arguments = [
            "serve", "--port", "0", "--cache-dir", cache.path, "--allow-unsigned", "--allow-network", "127.0.0.1/32",
            "--log-format", "json", "-v"
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        var seen = ""
        let reader = output.fileHandleForReading
        var port: Int?
        while port == nil {
            let chunk = reader.availableData
            guard !chunk.isEmpty else { break }
            seen += String(decoding: chunk, as: UTF8.self)
            if let range = seen.range(of: #"listening on http://[^:]+:(\d+)"#, options: .regularExpression) {
                port = Int(seen[range].split(separator: ":").last!)
            }
        }
        let listening = try XCTUnwrap(port, "serve did not say where it listens: \(seen)")
        try reader.close()  // the reader goes away: every later line to stdout meets EPIPE
        for _ in 0..<3 {
            let answer = try HTTPClient.request(port: listening, target: ProxyPath.plain(origin.url("/a.png")))
            XCTAssertEqual(answer.status, 200, answer.text)
        }
        XCTAssertTrue(process.isRunning, "the server ended with status \(process.terminationStatus)")
    }
}
