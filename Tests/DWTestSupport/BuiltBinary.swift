// BuiltBinary: the executables `swift build` made beside the test bundle (dwfetch and its engines).
import Foundation

/// Where the package's built executables are for the running tests. Any thread.
public enum BuiltBinary {
    /// `.build/<triple>/debug/<name>` (or release), beside the test bundle.
    public static func url(_ name: String) -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for dir in [bundle, bundle.deletingLastPathComponent()] {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return Bundle(for: Marker.self).bundleURL.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// ``url(_:)``'s path, or ``SubprocessFailure`` when nothing executable is there (build every product first:
    /// scripts/test.sh does).
    public static func require(_ name: String) throws -> String {
        let path = url(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw SubprocessFailure(
                command: [path], status: -1,
                message: "\(name) is not built; run scripts/test.sh (it builds every product)")
        }
        return path
    }

    private final class Marker {}
}
