// dwfetch's command-line contract: every flag, the JSON lines, exit codes, naming, cache flags, Ctrl-C, resume.
import Crypto
import DWTestServer
import Foundation
import XCTest

final class DWFetchTests: XCTestCase {
    var server: LoopbackHTTPServer!
    var root: URL!
    let cat = SampleImages.png(width: 64, height: 48, seed: 1)
    let dog = SampleImages.png(width: 32, height: 32, seed: 2)
    let spinner = SampleImages.gif(width: 16, height: 16, frames: 4, delayCentiseconds: 5, loopCount: 3)

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dwfetch-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        server.setRoute("/a/cat.png", .ok(cat, contentType: "image/png"))
        server.setRoute("/b/cat.png", .ok(dog, contentType: "image/png"))
        server.setRoute("/dog.png", .ok(dog, contentType: "image/png"))
        server.setRoute("/spinner.gif", .ok(spinner, contentType: "image/gif"))
        server.setRoute("/", .ok(cat, contentType: "image/png"))
        server.setRoute("/fake.png", .ok(SampleImages.notAnImage))
        server.setRoute("/missing.png", .status(404))
    }

    override func tearDown() {
        server.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    var cacheDir: String { root.appendingPathComponent("cache").path }
    func url(_ path: String) -> String { server.url(path) }
    func fetch(_ args: [String], stdin: String? = nil, timeout: TimeInterval = 60) throws -> FetchRun {
        try DWFetchProcess.run(["--cache-dir", cacheDir, "--retries", "0"] + args, stdin: stdin, timeout: timeout)
    }
    func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    // MARK: - Usage

    func testHelpListsEveryFlagAndExits0() throws {
        let run = try DWFetchProcess.run(["--help"])
        XCTAssertEqual(run.status, 0)
        for flag in [
            "--input", "--output", "--jobs", "--cache-dir", "--cache-space", "--no-cache", "--refresh", "--offline",
            "--retries", "--retry-delay", "--timeout", "--max-size", "--header", "--json", "--quiet",
            "--clear-cache", "--demo", "--prefetch", "--stats", "--cache-limit", "--cache-stats", "--expire",
            "--honor-cache-control", "--version", "--cacert", "--capath", "--cert", "--key",
            "--pinnedpubkey", "--insecure", "--proxy", "--noproxy"
        ] {
            XCTAssertTrue(run.stdout.contains(flag), "--help mentions \(flag)")
        }
    }

    func testDemoFetchesColdThenWarmAndChecksItself() throws {
        let run = try DWFetchProcess.run(["--demo", "--cache-dir", cacheDir], timeout: 120)
        XCTAssertEqual(run.status, 0, run.stderr)
        let all = run.stdout + run.stderr
        XCTAssertTrue(all.contains("everything behaved as expected"), all)
        XCTAssertTrue(all.contains("warm: 2 requests"), "only the two deliberate failures go to the network warm")
    }

    func testUsageErrorsExit2() throws {
        let cases: [[String]] = [
            [], ["--jobs", "0", url("/dog.png")], ["-H", "no colon", url("/dog.png")],
            ["--offline", "--refresh", url("/dog.png")], ["--bogus", url("/dog.png")],
            ["--retries", "-1", url("/dog.png")], ["-i", root.appendingPathComponent("none").path],
            ["--timeout", "soon", url("/dog.png")]
        ]
        for args in cases {
            let run = try DWFetchProcess.run(args)
            XCTAssertEqual(run.status, 2, "\(args): \(run.stderr)")
            XCTAssertFalse(run.stderr.isEmpty, "\(args) says what is wrong")
            XCTAssertTrue(run.stdout.isEmpty)
        }
        XCTAssertEqual(server.requestLog.count, 0, "no usage error sends a request")
    }

    // MARK: - JSON, order, exit status

    func testJSONLinesHaveTheDocumentedFieldsInInputOrderAndDuplicatesAreFetchedOnce() throws {
        let urls = [url("/spinner.gif"), url("/a/cat.png"), url("/missing.png"), url("/spinner.gif"), url("/fake.png")]
        let run = try fetch(["--json"] + urls)
        XCTAssertEqual(run.status, 1, "any failure → 1")
        let objects = try run.json()
        XCTAssertEqual(objects.count, 5, "one line per mention")
        XCTAssertEqual(objects.map { $0["url"] as? String }, urls, "input order")
        XCTAssertEqual(server.requestCount(path: "/spinner.gif"), 1, "named twice, fetched once")

        let keys = run.lines[0].split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map {
            String($0.element)
        }
        .filter {
            [
                "url", "ok", "source", "bytes", "format", "width", "height", "frames", "loop_count", "sha256", "path",
                "resumed_from", "attempts"
            ].contains($0)
        }
        XCTAssertEqual(
            keys,
            [
                "url", "ok", "source", "bytes", "format", "width", "height", "frames", "loop_count", "sha256",
                "path", "resumed_from", "attempts"
            ], "the documented field order")
        let gif = objects[0]
        XCTAssertEqual(gif["ok"] as? Bool, true)
        XCTAssertEqual(gif["source"] as? String, "network")
        XCTAssertEqual(gif["bytes"] as? Int, spinner.count)
        XCTAssertEqual(gif["format"] as? String, "gif")
        XCTAssertEqual(gif["width"] as? Int, 16)
        XCTAssertEqual(gif["height"] as? Int, 16)
        XCTAssertEqual(gif["frames"] as? Int, 4)
        XCTAssertEqual(gif["sha256"] as? String, sha256(spinner))
        XCTAssertTrue(gif["path"] is NSNull, "no -o: path is null")
        XCTAssertEqual(gif["resumed_from"] as? Int, 0)
        XCTAssertEqual(gif["attempts"] as? Int, 1)
        XCTAssertEqual(objects[3]["sha256"] as? String, sha256(spinner), "the duplicate reports the same image")

        let missing = try XCTUnwrap(objects[2]["error"] as? [String: Any])
        XCTAssertEqual(objects[2]["ok"] as? Bool, false)
        XCTAssertEqual(missing["code"] as? Int, 10004)
        XCTAssertEqual(missing["http_status"] as? Int, 404)
        XCTAssertEqual(missing["message"] as? String, "HTTP 404 Not Found")
        XCTAssertEqual((objects[4]["error"] as? [String: Any])?["code"] as? Int, 10000)

        let ok = try fetch(["--json", url("/dog.png")])
        XCTAssertEqual(ok.status, 0, "all fetched → 0")
    }

    /// One host name that does not resolve must not break the URLs after it (libcurl's pooled handle kept state from
    /// the failed resolve and refused every later plain-http transfer with error 43), and it reads as what it is.
    func testAnUnresolvableHostFailsAloneAndSaysSo() throws {
        let urls = ["http://nonexistent.invalid/a.png", url("/dog.png"), url("/a/cat.png")]
        let run = try DWFetchProcess.run(
            [
                "--cache-dir", cacheDir, "--retries", "1", "--retry-delay", "0", "-j", "1",
                "--no-cache", "--json"
            ] + urls, timeout: 60)
        let objects = try run.json()
        XCTAssertEqual(objects.count, 3, run.stderr)
        let error = try XCTUnwrap(objects[0]["error"] as? [String: Any])
        XCTAssertEqual(error["code"] as? Int, 10003)
        XCTAssertEqual(error["curl_code"] as? Int, 6, "\(error)")
        XCTAssertTrue((error["message"] as? String ?? "").lowercased().contains("resolve"), "\(error)")
        XCTAssertEqual(objects[1]["ok"] as? Bool, true, "\(objects[1])")
        XCTAssertEqual(objects[2]["ok"] as? Bool, true, "\(objects[2])")
    }

    /// DW's order: the first URL starts at once, then the newest waiting one; the lines keep the input order.
    func testDownloadsStartNewestFirstAndLinesKeepInputOrder() throws {
        let paths = (1...6).map { "/order\($0).png" }
        for path in paths { server.setRoute(path, .ok(dog, contentType: "image/png")) }
        let run = try fetch(["--json", "-j", "1", "--no-cache"] + paths.map(url))
        XCTAssertEqual(run.status, 0, run.stderr)
        let asked = server.requestLog.map(\.path).filter { $0.hasPrefix("/order") }
        XCTAssertEqual(
            asked, ["/order1.png", "/order6.png", "/order5.png", "/order4.png", "/order3.png", "/order2.png"])
        XCTAssertEqual(try run.json().map { $0["url"] as? String }, paths.map(url), "lines in input order")
    }

    func testHumanLinesAndSummaryWithoutCarriageReturnsOnAPipe() throws {
        let run = try fetch([url("/a/cat.png"), url("/missing.png")])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.lines.count, 2)
        XCTAssertTrue(run.lines[0].hasPrefix("ok"))
        XCTAssertTrue(
            run.lines[0].contains("png") && run.lines[0].contains("64x48") && run.lines[0].contains("network"))
        XCTAssertTrue(run.lines[1].hasPrefix("FAIL") && run.lines[1].contains("10004"))
        XCTAssertTrue(run.stderr.contains("1 fetched, 1 failed"), run.stderr)
        XCTAssertFalse(run.stderr.contains("\r"), "no progress redraws when stderr is not a terminal")
        XCTAssertFalse(run.stderr.contains("\u{1B}["), "no escape sequences either")

        let quiet = try fetch(["-q", url("/dog.png")])
        XCTAssertEqual(quiet.stderr, "", "-q: no summary")
        XCTAssertEqual(quiet.stdout, "", "-q: nothing for a success (CurlHabitsTests has the rest)")
    }

    // MARK: - Input

    func testInputFromStdinAndFileSkipsBlanksAndComments() throws {
        let list = "# a comment\n\n\(url("/a/cat.png"))\n   \n\(url("/dog.png"))\n"
        let run = try fetch(["--json", "-i", "-"], stdin: list)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try run.json().map { $0["url"] as? String }, [url("/a/cat.png"), url("/dog.png")])

        let file = root.appendingPathComponent("urls.txt")
        try Data(list.utf8).write(to: file)
        let fromFile = try fetch(["--json", url("/spinner.gif"), "-i", file.path])
        XCTAssertEqual(
            try fromFile.json().map { $0["url"] as? String }, [url("/spinner.gif"), url("/a/cat.png"), url("/dog.png")],
            "command-line URLs first, then the file's")
    }

    // MARK: - Output directory

    func testOutputNamesAreUniqueDeterministicAndWrittenWhole() throws {
        let out = root.appendingPathComponent("out")
        let urls = [url("/a/cat.png"), url("/b/cat.png"), url("/"), url("/dog.png")]
        let run = try fetch(["--json", "-o", out.path] + urls)
        XCTAssertEqual(run.status, 0, run.stderr)
        let paths = try run.json().map { try XCTUnwrap($0["path"] as? String) }
        let names = paths.map { URL(fileURLWithPath: $0).lastPathComponent }
        XCTAssertEqual(names[0], "cat.png")
        XCTAssertEqual(names[1], "cat-1.png", "a clash gets a deterministic suffix")
        XCTAssertFalse(names[2].isEmpty, "an empty last component still gets a name")
        XCTAssertEqual(names[3], "dog.png")
        XCTAssertEqual(Set(names).count, 4)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: paths[0])), cat)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: paths[1])), dog)
        let listing = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        XCTAssertEqual(listing.count, 4, "no temp files left: \(listing)")

        // Same input, same names (deterministic), into a fresh directory.
        let out2 = root.appendingPathComponent("out2")
        let again = try fetch(["--json", "-o", out2.path] + urls)
        XCTAssertEqual(try again.json().map { URL(fileURLWithPath: $0["path"] as! String).lastPathComponent }, names)
    }

    // MARK: - Transfer flags

    func testHeadersReachTheServer() throws {
        _ = try fetch(["-H", "X-Token: abc", "-H", "Accept: image/*", url("/dog.png")])
        let request = try XCTUnwrap(server.requestLog.first)
        XCTAssertEqual(request.header("X-Token"), "abc")
        XCTAssertEqual(request.header("Accept"), "image/*")
    }

    func testMaxSizeAndTimeout() throws {
        server.setRoute("/big.png", .ok(SampleImages.png(approximateSize: 200_000), contentType: "image/png"))
        let big = try fetch(["--json", "--max-size", "100000", url("/big.png")])
        XCTAssertEqual((try big.json()[0]["error"] as? [String: Any])?["code"] as? Int, 10005)

        server.setRoute("/hang.png", .hang)
        let started = Date()
        let hung = try fetch(["--json", "--timeout", "1", url("/hang.png")])
        XCTAssertEqual((try hung.json()[0]["error"] as? [String: Any])?["code"] as? Int, 10003)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "the 1 s timeout applied")
    }

    func testRetriesAndRetryDelay() throws {
        let counter = Counter()
        let dog = self.dog
        server.setHandler("/flaky.png") { _ in counter.next() == 1 ? .status(503) : .ok(dog, contentType: "image/png") }
        let run = try DWFetchProcess.run([
            "--cache-dir", cacheDir, "--json", "--retries", "2", "--retry-delay", "0",
            url("/flaky.png")
        ])
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertEqual(try run.json()[0]["attempts"] as? Int, 2)

        server.setRoute("/down.png", .status(503))
        let none = try fetch(["--json", url("/down.png")])  // --retries 0
        XCTAssertEqual(none.status, 1)
        XCTAssertEqual(server.requestCount(path: "/down.png"), 1)
    }

    func testJobsLimitsConcurrency() throws {
        let slow = Route.delayed(0.3, .ok(dog, contentType: "image/png"))
        for i in 0..<6 { server.setRoute("/slow\(i).png", slow) }
        let run = try fetch(["-j", "2"] + (0..<6).map { url("/slow\($0).png") })
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(server.maxConcurrentRequests, 2, "-j 2: two at a time, and both slots used")
    }

    // MARK: - Prefetch and stats

    func testPrefetchRunsBehindTheNamedURLsAndIsReported() throws {
        for i in 0..<6 { server.setRoute("/pre\(i).png", .delayed(0.2, .ok(dog, contentType: "image/png"))) }
        server.setRoute("/now.png", .delayed(0.2, .ok(cat, contentType: "image/png")))
        let file = root.appendingPathComponent("prefetch.txt")
        try Data((0..<6).map { url("/pre\($0).png") }.joined(separator: "\n").utf8).write(to: file)
        let run = try fetch(["--json", "--stats", "--prefetch", file.path, url("/now.png")])
        XCTAssertEqual(run.status, 0, run.stderr)
        let objects = try run.json()
        XCTAssertEqual(objects.count, 7)
        XCTAssertEqual(objects[0]["url"] as? String, url("/now.png"))
        XCTAssertNil(objects[0]["prefetch"])
        XCTAssertEqual(objects.dropFirst().map { $0["url"] as? String }, (0..<6).map { url("/pre\($0).png") })
        XCTAssertTrue(objects.dropFirst().allSatisfy { $0["prefetch"] as? Bool == true })
        XCTAssertNotNil(objects[0]["queued_ms"] as? Int)
        XCTAssertGreaterThanOrEqual(objects[0]["elapsed_ms"] as? Int ?? 0, 190, "the server took 0.2 s")
        let now = try XCTUnwrap(server.requestLog.firstIndex { $0.path == "/now.png" })
        XCTAssertLessThanOrEqual(now, 2, "the named URL did not wait behind the prefetch list")
        XCTAssertLessThanOrEqual(server.maxConcurrentRequests, 3, "prefetch cap 2, plus the named URL")
        XCTAssertTrue(run.stderr.contains("stats: 7 requests (network 7"), run.stderr)
        XCTAssertTrue(run.stderr.contains("p95"), run.stderr)
    }

    // MARK: - Ctrl-C and resume across processes

    func testCtrlCCancelsAndLeavesNothingHalfWritten() throws {
        let body = SampleImages.png(approximateSize: 2_000_000, seed: 5)
        server.setRoute(
            "/slow.png",
            .throttled(
                chunk: 32 * 1024, interval: 0.05,
                .resource(body, contentType: "image/png", etag: "\"s\"")))
        let out = root.appendingPathComponent("out")
        let running = try DWFetchProcess.start([
            "--cache-dir", cacheDir, "-o", out.path, url("/slow.png"), url("/dog.png")
        ])
        XCTAssertTrue(server.waitForBodyBytes(path: "/slow.png", atLeast: 300_000, timeout: 20))
        running.signal(SIGINT)
        let run = running.wait(timeout: 20)
        XCTAssertEqual(run.status, 130, "interrupted: 130, as shells expect")
        let written = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
        XCTAssertFalse(written.contains { $0.hasPrefix(".") || $0.contains("tmp") }, "no temp files: \(written)")
        XCTAssertFalse(written.contains("slow.png"), "the interrupted image is not in the output")
        let space = root.appendingPathComponent("cache/defaultCacheSpace").path
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: space)) ?? []
        XCTAssertFalse(entries.contains { $0.hasPrefix(".tmp") }, "no torn cache entry")
        let offline = try fetch(["--offline", url("/slow.png")])
        XCTAssertEqual(offline.status, 1, "the interrupted image was not cached")
    }

    func testAKilledRunResumesInTheNextProcess() throws {
        let body = SampleImages.png(approximateSize: 4_000_000, seed: 9)
        let route = Route.resource(body, contentType: "image/png", etag: "\"big-v1\"")
        server.setRoute("/big.png", .throttled(chunk: 64 * 1024, interval: 0.02, route))
        let first = try DWFetchProcess.start(["--cache-dir", cacheDir, "--json", url("/big.png")])
        XCTAssertTrue(server.waitForBodyBytes(path: "/big.png", atLeast: body.count * 45 / 100, timeout: 30))
        first.signal(SIGKILL)
        _ = first.wait(timeout: 10)
        let sentBefore = server.bodyBytesSent(path: "/big.png")
        XCTAssertLessThan(sentBefore, body.count, "killed before the end")

        server.resetStatistics()
        server.setRoute("/big.png", route)
        let second = try fetch(["--json", url("/big.png")])
        XCTAssertEqual(second.status, 0, second.stderr)
        let line = try XCTUnwrap(second.json().first)
        XCTAssertEqual(line["sha256"] as? String, sha256(body), "the joined body is exactly the original")
        let range = try XCTUnwrap(server.requestLog.first?.header("Range"))
        let offset = try XCTUnwrap(Int(range.dropFirst("bytes=".count).dropLast()))
        XCTAssertGreaterThan(offset, 0, "the second run asked to resume: \(range)")
        XCTAssertEqual(line["resumed_from"] as? Int, offset)
        XCTAssertLessThanOrEqual(
            server.bodyBytesSent(path: "/big.png"), body.count * 65 / 100,
            "the second run fetched only the rest")
    }

    // MARK: - Helpers

    func snapshot(_ dir: String) throws -> [String: Int] {
        var result: [String: Int] = [:]
        guard let walker = FileManager.default.enumerator(atPath: dir) else { return result }
        for case let path as String in walker {
            let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/" + path)
            result[path] = (attributes[.size] as? Int) ?? -1
        }
        return result
    }
}
