// One executable per job: a plain fetch maps the core's libraries only (read from /proc/PID/maps while it runs),
// the engines come in through dwfetch-pixels and dwfetch-serve, no product holds test support, and `serve` is a
// subcommand of the parser.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ExecutablesTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var root: URL!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dwfetch-exe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let body = SampleImages.png(approximateSize: 300_000, seed: 4)
        server.setRoute("/slow.png", .throttled(chunk: 16 * 1024, interval: 0.05, .ok(body, contentType: "image/png")))
    }

    override func tearDown() {
        server.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    private var cacheDir: String { root.appendingPathComponent("cache").path }

    /// The shared objects a running dwfetch has mapped, by path, read while `/slow.png` is mid-body.
    private func mappedLibraries(_ args: [String]) throws -> Set<String> {
        server.resetStatistics()
        let running = try DWFetchProcess.start(
            ["--cache-dir", cacheDir, "--no-cache"] + args + [server.url("/slow.png")])
        defer { running.signal(SIGKILL); _ = running.wait(timeout: 20) }
        XCTAssertTrue(server.waitForBodyBytes(path: "/slow.png", atLeast: 32 * 1024, timeout: 30), "the fetch started")
        // Read to EOF (a /proc file has no size, and a sized read stops at the first page).
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/\(running.process.processIdentifier)/maps"))
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return Set(
            maps.split(separator: "\n").compactMap { line -> String? in
                guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.hasPrefix("/"),
                    path.contains(".so")
                else { return nil }
                return String(path)
            })
    }

    private func fileName(_ path: String) -> String { String(path.split(separator: "/").last ?? "") }

    /// The shared objects `ldd` lists for an executable beside dwfetch (or a library at a path), by file name.
    private func linked(_ name: String) throws -> Set<String> {
        let binary =
            name.hasPrefix("/")
            ? name : DWFetchProcess.binary.deletingLastPathComponent().appendingPathComponent(name).path
        let ldd = try ProcessRun.run("/usr/bin/ldd", [binary])
        XCTAssertEqual(ldd.status, 0, "ldd \(binary): \(ldd.errors)")
        return Set(
            ldd.output.split(separator: "\n").compactMap { line in
                line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first { $0.hasPrefix("/") }.map {
                    String($0.split(separator: "/").last!)
                }
            })
    }

    func testAPlainFetchMapsOnlyLibcurlGiflibZlibAndTheSwiftRuntime() throws {
        let thin = try linked("dwfetch"), pixels = try linked("dwfetch-pixels")
        let paths = try mappedLibraries([])
        let maps = Set(paths.map(fileName))
        // libcurl is opened by the first transfer (CCurlShim's dlopen), not linked: it and what it links are the core's.
        XCTAssertFalse(thin.contains { $0.hasPrefix("libcurl") }, "dwfetch opens libcurl when a transfer needs it")
        let curl = try XCTUnwrap(paths.first { fileName($0).hasPrefix("libcurl.so") }, "a download maps libcurl")
        let core = thin.union(try linked(curl)).union([fileName(curl)])
        let engines = pixels.subtracting(core)
        XCTAssertTrue(
            engines.contains { $0.hasPrefix("libvips.so") }, "dwfetch-pixels links libvips: \(engines.sorted())")
        XCTAssertTrue(engines.contains { $0.hasPrefix("libchafa.so") }, "dwfetch-pixels links libchafa")
        XCTAssertEqual(maps.intersection(engines), [], "a plain fetch maps none of the pixel engines' libraries")
        for name in maps {
            XCTAssertFalse(["vips", "chafa", "glib", "gobject", "gmodule"].contains { name.contains($0) }, name)
        }
        XCTAssertTrue(
            maps.contains { $0.hasPrefix("libcurl") } && maps.contains { $0.hasPrefix("libgif") }
                && maps.contains { $0.hasPrefix("libz.") }, maps.sorted().joined(separator: " "))
        // Beyond what dwfetch links (giflib, zlib and the Swift runtime) and libcurl with what it links (TLS, LDAP,
        // SSH…), only the SASL plugins libcurl's LDAP loads at start-up, and what they link.
        var allowed = core
        for plugin in paths where plugin.contains("/sasl2/") {
            allowed.formUnion(try linked(plugin).union([fileName(plugin)]))
        }
        let unexpected = maps.filter { name in !allowed.contains { $0 == name || name.hasPrefix($0 + ".") } }
        XCTAssertEqual(unexpected, [], "mapped but neither linked by dwfetch nor libcurl's SASL plugins")
    }

    /// A fetch answered from the cache and `--help` open no libcurl (the dynamic loader's own log of what it loads,
    /// dlopen included); a download and `--version` do.
    func testOnlyATransferOrVersionOpensLibcurl() throws {
        server.setRoute("/cat.png", .ok(SampleImages.png(approximateSize: 2_000, seed: 2), contentType: "image/png"))
        func loadsLibcurl(_ args: [String]) throws -> Bool {
            let run = try DWFetchProcess.run(args, environment: ["LD_DEBUG": "files"])
            XCTAssertEqual(run.status, 0, "\(args): \(run.stderr.suffix(500))")
            XCTAssertTrue(run.stderr.contains("file="), "LD_DEBUG=files reports every library loaded")
            return run.stderr.contains("file=libcurl.so")
        }
        let fetch = ["-q", "--cache-dir", cacheDir, server.url("/cat.png")]
        XCTAssertTrue(try loadsLibcurl(fetch), "a download opens libcurl")
        XCTAssertFalse(try loadsLibcurl(fetch), "a fetch from the cache does not")
        XCTAssertFalse(try loadsLibcurl(["--help"]))
        XCTAssertTrue(try loadsLibcurl(["--version"]), "--version reports libcurl's run-time version")
    }

    /// A `--no-cache` run loads libcurl on a helper thread while its arguments are parsed. It must not exit while
    /// OpenSSL is being set up there: exit's handlers would tear OpenSSL down under that thread (a release build
    /// that exited on a usage error without waiting crashed 20 times in 400). Here OpenSSL reads its configuration
    /// from a FIFO, so its set-up lasts until the test writes one.
    func testAUsageErrorWaitsForTheLibcurlLoadedMeanwhile() throws {
        let fifo = root.appendingPathComponent("openssl.cnf").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let running = try DWFetchProcess.start(["--no-cache", "--bogus"], environment: ["OPENSSL_CONF": fifo])
        defer { running.signal(SIGKILL); _ = running.wait(timeout: 20) }
        let printed = "for usage."  // the usage error's last words
        _ = eventually(timeout: 30, interval: 0.02) {
            ((try? String(contentsOf: running.errURL, encoding: .utf8)) ?? "").contains(printed)
        }
        XCTAssertTrue(try String(contentsOf: running.errURL, encoding: .utf8).contains(printed), "the usage error")
        usleep(300_000)
        XCTAssertTrue(running.process.isRunning, "still waiting for OpenSSL's set-up after the usage error")
        let writer = open(fifo, O_WRONLY | O_NONBLOCK)  // ENXIO unless OpenSSL has the FIFO open for reading
        XCTAssertGreaterThanOrEqual(writer, 0, "OpenSSL is reading its configuration")
        if writer >= 0 {
            _ = "# nothing to configure\n".withCString { write(writer, $0, strlen($0)) }
            close(writer)
        }
        let run = running.wait(timeout: 30)
        XCTAssertEqual(run.status, 2, run.stderr)
    }

    func testTheThinBinaryHoldsNoServerNoTestServerAndNoPixelCode() throws {
        let binary = try Data(contentsOf: DWFetchProcess.binary, options: .alwaysMapped)
        for module in [
            "Hummingbird", "NIOPosix", "LoopbackHTTPServer", "DWImageServer", "vips_image_new", "chafa_canvas"
        ] {
            XCTAssertNil(binary.range(of: Data(module.utf8)), "dwfetch holds no \(module)")
        }
    }

    /// Test support never ships: the four product executables hold no code of the test targets (the loopback
    /// server, the peers, the test codecs); only dwfetch-demo, which is not a product, holds the sample server.
    func testNoShippedExecutableHoldsTestSupport() throws {
        let directory = DWFetchProcess.binary.deletingLastPathComponent()
        for product in ["dwfetch", "dwfetch-pixels", "dwfetch-serve", "dwfetch-svg"] {
            let binary = try Data(contentsOf: directory.appendingPathComponent(product), options: .alwaysMapped)
            for module in ["DWTestServer", "DWTestPeers", "DWTestSupport", "DWTestCodecs", "LoopbackHTTPServer"] {
                XCTAssertNil(binary.range(of: Data(module.utf8)), "\(product) holds no \(module)")
            }
        }
        let demo = try Data(contentsOf: directory.appendingPathComponent("dwfetch-demo"), options: .alwaysMapped)
        XCTAssertNotNil(demo.range(of: Data("LoopbackHTTPServer".utf8)), "the demo carries its sample server")
    }

    func testPixelFlagsAndPreviewBringTheirEnginesIn() throws {
        let maps = Set(try mappedLibraries(["--resize", "8x8"]).map(fileName))
        XCTAssertTrue(
            maps.contains { $0.hasPrefix("libvips.so") }, "the pixel flags run in dwfetch-pixels: \(maps.sorted())")
        XCTAssertFalse(try linked("dwfetch-serve").contains { $0.hasPrefix("libchafa") }, "serve maps no libchafa")
    }

    func testServeIsASubcommandWithItsOwnHelp() throws {
        let help = try DWFetchProcess.run(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("SUBCOMMANDS:") && help.stdout.contains("serve"), help.stdout)
        for args in [["serve", "--help"], ["help", "serve"]] {
            let serveHelp = try DWFetchProcess.run(args)
            XCTAssertEqual(serveHelp.status, 0, "\(args): \(serveHelp.stderr)")
            XCTAssertTrue(serveHelp.stdout.contains("USAGE: dwfetch serve"), serveHelp.stdout)
            for flag in ["--host", "--port", "--key", "--salt", "--allow-network", "--max-size"] {
                XCTAssertTrue(serveHelp.stdout.contains(flag), "\(args) mentions \(flag)")
            }
            XCTAssertFalse(serveHelp.stdout.contains("--resize"), "serve's help is its own")
        }
        for bad in [
            ["serve", "--port", "70000"], ["serve", "--allow-network", "not-a-cidr"], ["serve", "--key", "00"],
            ["serve", "--bogus"]
        ] {
            let run = try DWFetchProcess.run(bad)
            XCTAssertEqual(run.status, 2, "\(bad): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("dwfetch serve --help") || run.stderr.contains("Usage"), run.stderr)
        }
    }
}
