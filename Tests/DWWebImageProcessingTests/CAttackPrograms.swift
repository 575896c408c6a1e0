// CAttackPrograms: the C programs in Fixtures that attack a C library's threading directly (libvips' thread set,
// ORC's code memory), built with the system's C compiler against pkg-config packages, with or without one of CVips'
// fixes linked in. Used by ThreadsetIdleTests and OrcCodeLockTests.
import DWTestSupport
import Foundation
import XCTest

/// A scratch directory of built C programs, removed with ``remove()``.
struct CAttackPrograms {
    /// The compiler refused a program (its diagnostics).
    struct CompileFailure: Error {
        let message: String
    }

    let directory: URL

    /// A new, empty scratch directory under the temporary directory.
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("dw-attack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// `Tests/DWWebImageProcessingTests/Fixtures/<name>`.
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)").path
    }

    /// `Sources/CVips/<name>`: a fix as the products compile it.
    static func cvipsSource(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/CVips/\(name)").standardized.path
    }

    /// Builds `sources` into `<directory>/<name>` (a shared object with `shared`) against the pkg-config `packages`;
    /// its path. Fails the test (and throws) when the compiler does.
    func build(_ name: String, _ sources: [String], packages: [String], shared: Bool = false) throws -> String {
        let compiler = FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") ? "/usr/bin/cc" : "clang"
        let flags = try Subprocess.output(["pkg-config", "--cflags", "--libs"] + packages)
            .split(whereSeparator: \.isWhitespace).map(String.init)
        let output = directory.appendingPathComponent(name).path
        let arguments =
            ["-O1"] + (shared ? ["-shared", "-fPIC"] : []) + ["-o", output] + sources + flags
            + ["-lpthread", "-ldl"]
        let run = try ProcessRun.run(compiler, arguments)
        guard run.status == 0 else {
            XCTFail("\(compiler) \(arguments.joined(separator: " ")): \(run.errors)")
            throw CompileFailure(message: run.errors)
        }
        return output
    }
}
