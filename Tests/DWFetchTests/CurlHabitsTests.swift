// What curl and wget users type without thinking: --version, sizes with K/M/G, -q that prints only failures,
// and http://[::1]:port/ URLs.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class CurlHabitsTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var root: URL!
    private let image = SampleImages.png(width: 64, height: 48, seed: 7)  // a few KiB

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dwfetch-habits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        server.setRoute("/cat.png", .ok(image, contentType: "image/png"))
        server.setRoute("/missing.png", .status(404))
    }

    override func tearDown() {
        server.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    private var cacheDir: String { root.appendingPathComponent("cache").path }
    private func fetch(_ args: [String]) throws -> FetchRun {
        try DWFetchProcess.run(["--cache-dir", cacheDir, "--retries", "0"] + args)
    }

    func testVersionNamesDwfetchLibcurlWithFeaturesGiflibZlibAndLibvips() throws {
        let run = try DWFetchProcess.run(["--version"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.lines
        XCTAssertTrue(lines.first?.hasPrefix("dwfetch ") == true, run.stdout)
        // The versions the libraries report at run time, checked against the tools that report them too.
        let curlConfig = try Self.output("curl-config", ["--version"])  // "libcurl 7.88.1"
        let curlLine = try XCTUnwrap(lines.first { $0.hasPrefix("libcurl ") }, run.stdout)
        XCTAssertTrue(
            curlLine.hasPrefix(curlConfig.trimmingCharacters(in: .whitespacesAndNewlines) + " "),
            "\(curlLine) vs \(curlConfig)")
        XCTAssertTrue(curlLine.contains("OpenSSL/") || curlLine.contains("GnuTLS/"), "the TLS library: \(curlLine)")
        let features = try XCTUnwrap(lines.first { $0.hasPrefix("  Features: ") }, run.stdout)
        for feature in ["SSL", "libz", "IPv6"] {
            XCTAssertTrue(features.split(separator: " ").contains(Substring(feature)), features)
        }
        XCTAssertTrue(lines.contains { $0.hasPrefix("  Protocols: ") && $0.contains(" https") })
        XCTAssertTrue(
            lines.contains { $0.range(of: #"^giflib \d+\.\d+\.\d+$"#, options: .regularExpression) != nil }, run.stdout)
        let zlib = try Self.output("pkg-config", ["--modversion", "zlib"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        XCTAssertTrue(lines.contains("zlib \(zlib)"), "zlib \(zlib) in \(run.stdout)")
        let vips = try Self.output("pkg-config", ["--modversion", "vips"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        XCTAssertTrue(lines.contains("libvips \(vips)"), "libvips \(vips) in \(run.stdout)")
        // `--version` alone is printed before the argument parser runs; with another flag the parser prints it.
        let parsed = try DWFetchProcess.run(["-q", "--version"])
        XCTAssertEqual(parsed.status, 0, parsed.stderr)
        XCTAssertEqual(parsed.stdout, run.stdout, "the same text either way")
    }

    func testSizesTakeKMGSuffixesInPowersOf1024() throws {
        // The image is between 1 KiB and 64 KiB: 1K refuses it (10005, limit 1024), 64K takes it.
        XCTAssertGreaterThan(image.count, 1024)
        let small = try fetch(["--json", "--no-cache", "--max-size", "1K", server.url("/cat.png")])
        XCTAssertEqual(small.status, 1)
        let error = try XCTUnwrap(small.json().first?["error"] as? [String: Any])
        XCTAssertEqual(error["code"] as? Int, 10005)
        XCTAssertTrue((error["message"] as? String)?.contains("limit of 1024") == true, "\(error)")
        let big = try fetch(["--json", "--no-cache", "--max-size", "64k", server.url("/cat.png")])
        XCTAssertEqual(big.status, 0, big.stdout + big.stderr)
        XCTAssertEqual(try fetch(["--json", "--no-cache", "--max-size", "10M", server.url("/cat.png")]).status, 0)

        for (text, bytes) in [
            ("2G", "2147483648"), ("512M", "536870912"), ("1.5K", "1536"), ("4096", "4096"), ("1MiB", "1048576")
        ] {
            let stats = try fetch(["--cache-limit", text, "--cache-stats"])
            XCTAssertEqual(stats.status, 0, stats.stderr)
            XCTAssertTrue(stats.stdout.contains("limit \(bytes)"), "--cache-limit \(text): \(stats.stdout)")
        }
        for bad in ["10X", "M", "-1K", "1..5M", ""] {
            let run = try fetch(["--max-size", bad, server.url("/cat.png")])
            XCTAssertEqual(run.status, 2, "--max-size \(bad)")
            XCTAssertTrue(run.stderr.contains("--max-size"), run.stderr)
        }
    }

    func testQuietPrintsNothingForSuccessesAndFailuresOnStderr() throws {
        let run = try fetch(["-q", server.url("/cat.png"), server.url("/missing.png")])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "", "-q: nothing on stdout")
        let errLines = run.stderr.split(separator: "\n")
        XCTAssertEqual(errLines.count, 1, run.stderr)
        XCTAssertTrue(
            errLines.first?.contains("10004") == true && errLines.first?.contains("/missing.png") == true, run.stderr)
        XCTAssertFalse(run.stderr.contains("/cat.png"), "no line for the success")

        let allGood = try fetch(["-q", server.url("/cat.png")])
        XCTAssertEqual(allGood.status, 0)
        XCTAssertEqual(allGood.stdout + allGood.stderr, "", "a quiet success prints nothing at all")

        let json = try fetch(["-q", "--json", server.url("/cat.png"), server.url("/missing.png")])
        XCTAssertEqual(try json.json().map { $0["ok"] as? Bool }, [true, false], "--json is unaffected by -q")
        XCTAssertEqual(json.stderr, "", "with --json the failure is in its JSON line, and no summary")
    }

    func testIPv6LoopbackURLs() throws {
        let v6: LoopbackHTTPServer
        do {
            v6 = try LoopbackHTTPServer(ipv6: true)
        } catch {
            throw MissingPrerequisite("this machine cannot listen on ::1 (\(error)); IPv6 is disabled in the kernel")
        }
        defer { v6.shutdown() }
        v6.setRoute("/img/cat.png", .ok(image, contentType: "image/png"))
        let url = v6.url("/img/cat.png")
        XCTAssertTrue(url.hasPrefix("http://[::1]:"), url)
        let out = root.appendingPathComponent("out")
        let cold = try fetch(["--json", "-o", out.path, url])
        XCTAssertEqual(cold.status, 0, cold.stdout + cold.stderr)
        let line = try XCTUnwrap(cold.json().first)
        XCTAssertEqual(line["source"] as? String, "network")
        XCTAssertEqual(line["width"] as? Int, 64)
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("cat.png")), image)
        let warm = try fetch(["--json", url])
        XCTAssertEqual(try warm.json().first?["source"] as? String, "disk", "cached under the [::1] URL")
        XCTAssertEqual(v6.requestCount(path: "/img/cat.png"), 1)
    }

    /// `dwfetch -i list | head -1`: when the reader of stdout goes away, dwfetch ends as `cat` does under `head`
    /// (SIGPIPE, status 141 in the shell), never with a trap; `cat`'s own status is the oracle.
    func testAReaderThatGoesAwayEndsItAsSIGPIPEEndsCat() throws {
        let list = root.appendingPathComponent("urls.txt")
        try String(repeating: server.url("/cat.png") + "\n", count: 4000).write(
            to: list, atomically: true, encoding: .utf8)
        let script =
            "\"$1\" --cache-dir \"$2\" --no-cache -i \"$3\" 2>\"$4\" | head -1 >/dev/null; s=${PIPESTATUS[0]}; "
            + "yes | head -1 >/dev/null; echo \"$s ${PIPESTATUS[0]}\""
        let errors = root.appendingPathComponent("stderr")
        let statuses = try Self.output(
            "bash", ["-c", script, "bash", DWFetchProcess.binary.path, cacheDir, list.path, errors.path])
        let parts = statuses.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        XCTAssertEqual(parts.count, 2, statuses)
        XCTAssertEqual(parts.first, parts.last, "dwfetch's status beside yes's under head")
        XCTAssertEqual(parts.first, "141", statuses)
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        XCTAssertFalse(stderr.contains("Fatal error"), stderr)
    }

    static func output(_ tool: String, _ arguments: [String]) throws -> String {
        try Subprocess.output([tool] + arguments)
    }
}
