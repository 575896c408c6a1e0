// ReferenceTool: one run of a command-line encoder or decoder from Debian (cjxl, djxl, heif-enc…) on bytes.
import Foundation

/// Runs a converting program on bytes through temporary files (removed after). Blocks the calling thread until the
/// program exits; throws ``MissingPrerequisite`` when it is not installed or fails.
public enum ReferenceTool {
    /// Writes `input` to `in.<inputExtension>`, runs `/usr/bin/<name>` with `arguments(inputPath, outputPath)` and
    /// returns what it wrote to `out.<outputExtension>`. `package` names the Debian package for the error.
    public static func convert(
        _ name: String, package: String, input: Data, inputExtension: String, outputExtension: String,
        arguments: (_ input: String, _ output: String) -> [String]
    ) throws -> Data {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dwtool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inURL = dir.appendingPathComponent("in.\(inputExtension)")
        let outURL = dir.appendingPathComponent("out.\(outputExtension)")
        try input.write(to: inURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(name)")
        process.arguments = arguments(inURL.path, outURL.path)
        (process.standardOutput, process.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
        do { try process.run() } catch {
            throw MissingPrerequisite("\(name) is missing (Debian \(package); scripts/setup.sh installs it)")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0, let output = FileManager.default.contents(atPath: outURL.path) else {
            throw MissingPrerequisite("\(name) failed (exit \(process.terminationStatus))")
        }
        return output
    }
}
