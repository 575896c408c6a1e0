// RSVGConvert: librsvg's own command-line renderer, the reference the SVG tests compare our rasters with.
import Foundation

/// `rsvg-convert` (Debian `librsvg2-bin`, installed by scripts/setup.sh) run once per call, in its own temporary
/// directory. Runs on the calling thread and waits for the program.
public enum RSVGConvert {
    /// `svg` rendered at exactly `width`×`height` (`rsvg-convert -w W -h H`), as PNG bytes; a failure to run or a
    /// non-zero exit throws ``PeerDidNotStart`` naming the package.
    public static func png(_ svg: Data, width: Int, height: Int) throws -> Data {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dwrsvg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.svg"), output = dir.appendingPathComponent("out.png")
        try svg.write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["rsvg-convert", "-w", "\(width)", "-h", "\(height)", "-o", output.path, input.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let png = FileManager.default.contents(atPath: output.path) else {
            throw PeerDidNotStart(description: "rsvg-convert failed (scripts/setup.sh installs librsvg2-bin)")
        }
        return png
    }
}
