// ProcessRun: the one way the tests run a program to its end and read what it printed.
import Foundation

/// One finished run of a program: its exit status and what it wrote. Made by
/// ``run(_:_:environment:input:timeout:)``, which blocks the calling thread until the program exits; any thread.
public struct ProcessRun: Sendable {
    /// The exit status (or the signal's number, when ``signalled``).
    public let status: Int32
    /// Whether a signal ended the program (a crash: a trap, an abort).
    public let signalled: Bool
    /// Everything it wrote to stdout.
    public let stdout: Data
    /// Everything it wrote to stderr.
    public let stderr: Data
    /// Whether the run was killed (SIGKILL) at its timeout: it did not end by itself.
    public let timedOut: Bool

    /// stdout as UTF-8.
    public var output: String { String(decoding: stdout, as: UTF8.self) }
    /// stderr as UTF-8.
    public var errors: String { String(decoding: stderr, as: UTF8.self) }

    /// Runs `program` (an absolute path, else a program found on `PATH` through `/usr/bin/env`) with `arguments`,
    /// `environment` set over this process's own and `input` on its stdin (else none), to its end, or killed after
    /// `timeout` seconds when one is given (``timedOut``: for a program that should end by itself, a server
    /// refusing its start, so that one that does not fails its test instead of hanging it). Throws
    /// ``SubprocessFailure`` only when it cannot start: a non-zero exit is the caller's to judge.
    public static func run(
        _ program: String, _ arguments: [String] = [], environment: [String: String] = [:],
        input: Data? = nil, timeout: TimeInterval? = nil
    ) throws -> ProcessRun {
        let process = Process()
        if program.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + arguments
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        (process.standardOutput, process.standardError) = (out, err)
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        do {
            try process.run()
        } catch {
            throw SubprocessFailure(command: [program] + arguments, status: -1, message: "cannot start: \(error)")
        }
        // stderr and stdin on threads of their own: a program that fills one pipe while the other is read (or
        // waits for its input to end) must not stall.
        let errors = PipeReader(err.fileHandleForReading)
        let (ended, killed) = (DispatchSemaphore(value: 0), TestFlag())
        if let timeout {
            let pid = process.processIdentifier
            Thread.detachNewThread {
                guard ended.wait(timeout: .now() + timeout) == .timedOut else { return }
                killed.set()
                kill(pid, SIGKILL)
            }
        }
        if let input {
            Thread.detachNewThread {
                stdin.fileHandleForWriting.write(input)
                try? stdin.fileHandleForWriting.close()
            }
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        ended.signal()  // the watchdog, if any, stands down
        return ProcessRun(
            status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
            stdout: output, stderr: errors.wait(), timedOut: killed.isSet)
    }
}

/// Runs programs for the tests and hands back what they printed.
public enum Subprocess {
    /// Runs `command` (a program found on `PATH` through `/usr/bin/env`, or an absolute path) and returns its
    /// stdout; throws ``SubprocessFailure`` with its stderr when it cannot start or exits non-zero.
    public static func output(_ command: [String]) throws -> String {
        let run = try ProcessRun.run(command[0], Array(command.dropFirst()))
        guard run.status == 0, !run.signalled else {
            throw SubprocessFailure(
                command: command, status: run.status,
                message: String(decoding: run.stderr.suffix(4000), as: UTF8.self))
        }
        return run.output
    }
}

/// A program the tests ran that could not start or failed: what ran, its exit status (-1: never ran) and stderr.
public struct SubprocessFailure: Error, CustomStringConvertible {
    public let command: [String]
    public let status: Int32
    public let message: String
    public var description: String {
        "\(command.first ?? "") failed (\(status)): \(message)"
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class PipeReader: @unchecked Sendable {
    // @unchecked: `data` is written once by the reading thread before `done` is signalled, read after waiting on it.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    /// Everything the pipe held, once it closed.
    func wait() -> Data {
        done.wait()
        return data
    }
}
