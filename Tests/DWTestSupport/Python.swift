// Python: the one way the tests run python (and the other programs they call): the system's python3 with Pillow and
// imgproxy's helpers, or a virtual environment's python (thumbor's), as scripts/setup.sh installs them.
import Foundation

/// A python interpreter the tests run scripts with. A missing interpreter, a module that does not import, or any
/// non-zero exit throws ``SubprocessFailure`` with the program's stderr: the test fails, it never skips. Blocks the
/// calling thread until the program exits; any thread.
public struct Python: Sendable {
    /// The interpreter, and the arguments before the caller's (`/usr/bin/env python3` for the system's).
    let command: [String]

    /// The system's `python3`, found on `PATH`.
    public static let system = Python(command: ["python3"])

    /// The python of the virtual environment at `directory` (`<directory>/bin/python`).
    public static func venv(_ directory: URL) -> Python {
        Python(command: [directory.appendingPathComponent("bin/python").path])
    }

    /// Runs the interpreter with `arguments` (`-c SCRIPT …`, `-m MODULE …`, `FILE …`); its stdout as it is.
    public func run(_ arguments: [String]) throws -> String {
        if let path = command.first, path.hasPrefix("/"), !FileManager.default.isExecutableFile(atPath: path) {
            throw SubprocessFailure(command: command + arguments, status: -1,
                                    message: "no python at \(path) (scripts/setup.sh makes it)")
        }
        return try Subprocess.output(command + arguments)
    }

    /// Runs `script` (`-c`) with `arguments` after it; its stdout, trimmed.
    public func script(_ script: String, arguments: [String] = []) throws -> String {
        try run(["-c", script] + arguments).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Runs programs for the tests and hands back what they printed.
public enum Subprocess {
    /// Runs `command` (a program found on `PATH` through `/usr/bin/env`, or an absolute path) and returns its
    /// stdout; throws ``SubprocessFailure`` with its stderr when it cannot start or exits non-zero.
    public static func output(_ command: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let out = Pipe(), err = Pipe()
        (process.standardOutput, process.standardError) = (out, err)
        do {
            try process.run()
        } catch {
            throw SubprocessFailure(command: command, status: -1, message: "cannot start: \(error)")
        }
        // stderr on its own thread: a program that fills one pipe while the other is read must not stall.
        let errors = StderrReader(err.fileHandleForReading)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SubprocessFailure(command: command, status: process.terminationStatus,
                                    message: String(decoding: errors.wait().suffix(4000), as: UTF8.self))
        }
        return String(decoding: output, as: UTF8.self)
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
private final class StderrReader: @unchecked Sendable {
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
