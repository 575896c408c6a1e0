// DWLocalFileLoader's open, both ways (openat2, and the O_NOFOLLOW walk an old kernel gets), on real files, symlinks
// and a FIFO; and the start-up warning of an unsigned configuration.
import DWWebImage
@testable import DWWebImageServer
import Foundation
import XCTest

final class LocalLoaderTests: XCTestCase {
    private var root: URL!
    private var outside: URL!

    override func setUpWithError() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("dwloader-\(UUID().uuidString)")
        root = base.appendingPathComponent("root")
        outside = base.appendingPathComponent("outside")
        for dir in [root.appendingPathComponent("sub"), outside!] {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        }
        try Data("inside".utf8).write(to: root.appendingPathComponent("a.png"))
        try Data("sub".utf8).write(to: root.appendingPathComponent("sub/b b.png"))
        try Data("outside".utf8).write(to: outside.appendingPathComponent("secret.png"))
        let links = [
            ("link.png", "a.png"), ("dirlink", "sub"), ("out.png", outside.appendingPathComponent("secret.png").path),
            ("outdir", outside.path)
        ]
        for (name, target) in links {
            try FileManager.default.createSymbolicLink(
                atPath: root.appendingPathComponent(name).path,
                withDestinationPath: target)
        }
        XCTAssertEqual(mkfifo(root.appendingPathComponent("fifo").path, 0o600), 0)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: root.deletingLastPathComponent())
    }

    func testRegularFilesUnderTheRootOpenAndNothingElseDoesEitherWay() throws {
        for triesOpenat2 in [true, false] {
            var loader = DWLocalFileLoader(root: root)
            loader.triesOpenat2 = triesOpenat2
            XCTAssertEqual(try loader.readWhole("local:///a.png", maxBytes: 100), Data("inside".utf8))
            XCTAssertEqual(try loader.readWhole("local:///sub/b%20b.png", maxBytes: 100), Data("sub".utf8))
            XCTAssertEqual(try loader.readWhole("local:////sub//b%20b.png", maxBytes: 100), Data("sub".utf8))
            for refused in [
                "local:///link.png", "local:///dirlink/b%20b.png", "local:///out.png", "local:///outdir/secret.png",
                "local:///fifo", "local:///sub", "local:///", "local:///../outside/secret.png",
                "local:///sub/../a.png", "local:///./a.png", "local:///a.png%00", "local:///missing.png",
                "local://a.png", "local:///%zz"
            ] {
                XCTAssertThrowsError(
                    try loader.readWhole(refused, maxBytes: 100), "\(refused), openat2 \(triesOpenat2)"
                ) {
                    XCTAssertEqual(($0 as? DWWebImageError)?.httpStatus, 404, refused)
                }
            }
            XCTAssertThrowsError(try loader.readWhole("local:///a.png", maxBytes: 3)) {
                XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge)
            }
        }
        XCTAssertThrowsError(try DWLocalFileLoader(root: nil).readWhole("local:///a.png", maxBytes: 100)) {
            XCTAssertEqual(($0 as? DWWebImageError)?.httpStatus, 404, "no root: no local files")
        }
    }

    func testThisKernelHasOpenat2() throws {
        let directory = open(root.path, O_RDONLY | O_DIRECTORY)
        defer { close(directory) }
        let fd = try XCTUnwrap(
            DWLocalFileLoader.openBeneath(["a.png"], under: directory, flags: O_RDONLY),
            "openat2 is missing: only the O_NOFOLLOW walk is exercised here")
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        XCTAssertEqual(DWLocalFileLoader.openBeneath(["link.png"], under: directory, flags: O_RDONLY), -1)
    }

    func testAnUnsignedConfigurationIsWarnedAbout() throws {
        let warnings = DWImageServer.startupWarnings(DWServeConfiguration())
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings[0].contains("a reverse proxy on this host"), warnings[0])
        var signed = DWServeConfiguration()
        signed.signers = [try XCTUnwrap(DWURLSigner(keyHex: "6b6579", saltHex: "73"))]
        XCTAssertEqual(DWImageServer.startupWarnings(signed), [])
    }
}
