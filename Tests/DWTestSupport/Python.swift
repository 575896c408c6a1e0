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
        String(decoding: try data(arguments), as: UTF8.self)
    }

    /// ``run(_:)`` for a script that writes bytes (pixels, an encoded image): its stdout as it is.
    public func data(_ arguments: [String]) throws -> Data {
        if let path = command.first, path.hasPrefix("/"), !FileManager.default.isExecutableFile(atPath: path) {
            throw SubprocessFailure(
                command: command + arguments, status: -1,
                message: "no python at \(path) (scripts/setup.sh makes it)")
        }
        let run = try ProcessRun.run(command[0], Array(command.dropFirst()) + arguments)
        guard run.status == 0, !run.signalled else {
            throw SubprocessFailure(
                command: command + arguments, status: run.status,
                message: String(decoding: run.stderr.suffix(4000), as: UTF8.self))
        }
        return run.stdout
    }

    /// Runs `script` (`-c`) with `arguments` after it; its stdout, trimmed.
    public func script(_ script: String, arguments: [String] = []) throws -> String {
        try run(["-c", script] + arguments).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
