// thumbor 7.8.0 itself, run from .venv-thumbor (scripts/setup.sh) as the reference for the thumbor dialect's tests,
// with libthumbor building the URLs and Pillow measuring the answers.
import DWTestPeers
import DWTestSupport
import Foundation
import XCTest

/// One thumbor process on 127.0.0.1 (HTTP loader, no storage, quality 80, unsafe URLs allowed, ``key``, its built-in
/// filters plus `autojpg`, which thumbor ships but leaves out of its default `FILTERS`), shared by
/// a test class and stopped by ``stop()``. A thumbor that cannot start is a thrown ``ServeStartFailure`` (a failed
/// test, never a skip).
final class ThumborOracle: @unchecked Sendable {
    // @unchecked: every stored property is a constant set in init; Process may be queried from any thread.
    /// thumbor's SECURITY_KEY here (and `--thumbor-key` of the servers compared with it).
    static let key = "thumbor-test-key"
    let process: Process
    let port: Int
    private let dir: URL

    /// The repository's `.venv-thumbor`.
    static var venv: URL { SourceTree.url(".venv-thumbor") }

    init() throws {
        let binary = Self.venv.appendingPathComponent("bin/thumbor")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw ServeStartFailure("thumbor is not installed at \(binary.path): run scripts/setup.sh")
        }
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("dwthumbor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let conf = dir.appendingPathComponent("thumbor.conf")
        try """
        LOADER = 'thumbor.loaders.http_loader'
        STORAGE = 'thumbor.storages.no_storage'
        RESULT_STORAGE = None
        ALLOW_UNSAFE_URL = True
        SECURITY_KEY = '\(Self.key)'
        QUALITY = 80
        MAX_WIDTH = 0
        MAX_HEIGHT = 0
        from thumbor.filters import BUILTIN_FILTERS
        FILTERS = BUILTIN_FILTERS + ['thumbor.filters.autojpg']

        """.write(to: conf, atomically: true, encoding: .utf8)
        port = try PeerProcess.freePort()
        process = Process()
        process.executableURL = binary
        process.arguments = ["--port", String(port), "--ip", "127.0.0.1", "--conf", conf.path, "-l", "error"]
        let log = dir.appendingPathComponent("thumbor.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var healthy = false
        _ = eventually(timeout: 60, interval: 0.1) {
            healthy =
                process.isRunning
                && (try? HTTPClient.request(port: port, target: "/healthcheck", timeout: 2))?.status == 200
            return healthy || !process.isRunning
        }
        if healthy { return }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        stop()
        throw ServeStartFailure("thumbor did not start: \(text)")
    }

    /// GET of a raw target from thumbor.
    func get(_ target: String) throws -> HTTPResult { try HTTPClient.request(port: port, target: target) }

    /// Ends the process (SIGTERM, then SIGKILL) and removes its directory.
    func stop() {
        if process.isRunning { process.terminate() }
        _ = eventually(timeout: 10, interval: 0.01) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: dir)
    }

    /// Runs a script with the venv's python (libthumbor is there; ``Python/venv(_:)``); its stdout, trimmed.
    static func venvPython(_ script: String) throws -> String {
        try Python.venv(venv).script(script)
    }

    /// libthumbor's URLs: each element is the keyword arguments of `CryptoURL.generate` (image_url included);
    /// `unsafe=True` among them gives an `/unsafe/…` path. Signed with `key`.
    static func libthumbor(_ calls: [String], key: String = ThumborOracle.key) throws -> [String] {
        let lines = calls.map { "u = c.generate(\($0)); print(u if u.startswith('/') else '/' + u)" }
        let text = try venvPython(
            "from libthumbor import CryptoURL\nc = CryptoURL(key='\(key)')\n"
                + lines.joined(separator: "\n"))
        let paths = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(paths.count, calls.count)
        return paths
    }
}

/// Two answers measured by Pillow: each one's format and size, and the PSNR between their pixels (RGBA when either
/// has alpha, else RGB; infinity when equal; 0 when the sizes differ).
struct PixelComparison {
    let formats: [String]
    let sizes: [[Int]]
    let psnr: Double

    init(_ a: Data, _ b: Data) throws {
        let dir = FileManager.default.temporaryDirectory
        let fileA = dir.appendingPathComponent("dwcmp-\(UUID().uuidString)"),
            fileB = dir.appendingPathComponent("dwcmp-\(UUID().uuidString)")
        try a.write(to: fileA)
        try b.write(to: fileB)
        defer { for file in [fileA, fileB] { try? FileManager.default.removeItem(at: file) } }
        let text = try python(
            """
            import math
            from PIL import Image, ImageChops, ImageStat
            a, b = Image.open('\(fileA.path)'), Image.open('\(fileB.path)')
            out = [a.format, b.format, a.width, a.height, b.width, b.height]
            if a.size != b.size:
                out.append(0)
            else:
                alpha = 'A' in a.getbands() or 'A' in b.getbands() or 'transparency' in a.info or 'transparency' in b.info
                mode = 'RGBA' if alpha else 'RGB'
                d = ImageStat.Stat(ImageChops.difference(a.convert(mode), b.convert(mode)))
                mse = sum(d.sum2) / (a.width * a.height * len(mode))
                out.append('inf' if mse == 0 else 10 * math.log10(255 * 255 / mse))
            print(*out)
            """)
        let parts = text.split(separator: " ").map(String.init)
        guard parts.count == 7 else { throw ServeStartFailure("Pillow could not compare: \(text)") }
        formats = [parts[0], parts[1]]
        sizes = [[Int(parts[2]) ?? -1, Int(parts[3]) ?? -1], [Int(parts[4]) ?? -1, Int(parts[5]) ?? -1]]
        psnr = parts[6] == "inf" ? .infinity : Double(parts[6]) ?? 0
    }
}
