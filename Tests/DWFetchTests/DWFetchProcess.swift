// Runs the built `dwfetch` binary as a child process, the way a user does.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

/// One finished `dwfetch` run.
struct FetchRun {
    let status: Int32
    let stdout: String
    let stderr: String

    /// stdout's lines (no trailing empty line).
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    /// stdout's lines parsed as JSON objects.
    func json(file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try lines.map { text in
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
            return try XCTUnwrap(object as? [String: Any], "not an object: \(text)", file: file, line: line)
        }
    }
}

/// Locates and runs `dwfetch`.
enum DWFetchProcess {
    /// `.build/<triple>/debug/dwfetch`, beside the test bundle.
    static var binary: URL { BuiltBinary.url("dwfetch") }

    /// Starts `dwfetch args` (or the built executable `executable`) with stdout/stderr captured to files (no
    /// pipe-buffer deadlocks).
    static func start(
        _ args: [String], stdin: String? = nil, environment: [String: String] = [:],
        cwd: URL? = nil, executable: String = "dwfetch"
    ) throws -> Running {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dwfetch-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("stdout"), err = dir.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        let binary = BuiltBinary.url(executable)
        process.executableURL = binary
        process.arguments = args
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = nil
        for (k, v) in environment { env[k] = v }
        process.environment = env
        if let cwd { process.currentDirectoryURL = cwd }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw MissingPrerequisite(
                "dwfetch is not built at \(binary.path); run scripts/test.sh (it builds every product)")
        }
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        return Running(process: process, outURL: out, errURL: err, dir: dir)
    }

    /// Runs `dwfetch args` to completion (killed after `timeout` seconds).
    static func run(
        _ args: [String], stdin: String? = nil, environment: [String: String] = [:],
        timeout: TimeInterval = 60, executable: String = "dwfetch"
    ) throws -> FetchRun {
        let running = try start(args, stdin: stdin, environment: environment, executable: executable)
        return running.wait(timeout: timeout)
    }

    /// A child process in flight.
    struct Running {
        let process: Process
        let outURL: URL
        let errURL: URL
        let dir: URL

        func wait(timeout: TimeInterval) -> FetchRun {
            _ = eventually(timeout: timeout, interval: 0.01) { !process.isRunning }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                XCTFail("dwfetch did not finish within \(timeout) s")
            }
            process.waitUntilExit()
            let out = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
            let err = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: dir)
            return FetchRun(status: process.terminationStatus, stdout: out, stderr: err)
        }

        func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }
    }
}
