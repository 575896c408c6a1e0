// VipsHeader: what `vipsheader -a` (libvips-tools) prints for an image, for tests that check an output's metadata.
import Foundation

/// Reads an encoded image's header and metadata with the `vipsheader` program, as a user would check a file.
public enum VipsHeader {
    /// Every field `vipsheader -a` prints for `data` (written to a temporary file, removed after). Throws
    /// ``MissingPrerequisite`` when libvips-tools is not installed. Blocks the calling thread until it exits.
    public static func all(_ data: Data) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dwheader-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["vipsheader", "-a", file.path]
        let pipe = Pipe()
        (process.standardOutput, process.standardError) = (pipe, FileHandle.nullDevice)
        do {
            try process.run()
        } catch {
            throw MissingPrerequisite(
                "vipsheader is missing (Debian libvips-tools; scripts/setup.sh installs it): \(error)")
        }
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw MissingPrerequisite("vipsheader could not read the image (exit \(process.terminationStatus))")
        }
        return String(decoding: out, as: UTF8.self)
    }
}
