// AtomicFile: a name appears only with the whole file behind it; replacing works; a discarded file leaves nothing.
import DWFileIO
import Foundation
import XCTest

final class AtomicFileTests: XCTestCase {
    private var dir: String!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("dwatomic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir).sorted() }

    private func write(_ text: String, _ file: AtomicFile) -> Int32 {
        Array(text.utf8).withUnsafeBytes { file.write($0) }
    }

    func testTheNameAppearsOnlyWhenPublished() throws {
        var file = try XCTUnwrap(AtomicFile.create(in: dir) { ".tmp-named" })
        XCTAssertEqual(write("hello", file), 0)
        if file.tempPath == nil {
            XCTAssertEqual(try names(), [], "unnamed while written (O_TMPFILE)")
        }
        XCTAssertEqual(file.publish(as: dir + "/a.txt") { ".tmp-late" }, 0)
        XCTAssertEqual(try names(), ["a.txt"])
        XCTAssertEqual(try String(contentsOfFile: dir + "/a.txt", encoding: .utf8), "hello")
    }

    func testPublishingReplacesAnExistingFile() throws {
        try "old".write(toFile: dir + "/a.txt", atomically: false, encoding: .utf8)
        var file = try XCTUnwrap(AtomicFile.create(in: dir) { ".tmp-1" })
        XCTAssertEqual(write("new", file), 0)
        XCTAssertEqual(file.publish(as: dir + "/a.txt") { ".tmp-2" }, 0)
        XCTAssertEqual(try names(), ["a.txt"], "no temp name left behind")
        XCTAssertEqual(try String(contentsOfFile: dir + "/a.txt", encoding: .utf8), "new")
    }

    func testADiscardedFileLeavesNothing() throws {
        let file = try XCTUnwrap(AtomicFile.create(in: dir) { ".tmp-1" })
        XCTAssertEqual(write("half", file), 0)
        file.discard()
        XCTAssertEqual(try names(), [])
    }

    func testAMissingDirectoryIsAnErrorNotAFallback() {
        XCTAssertNil(AtomicFile.create(in: dir + "/missing") { ".tmp" })
        XCTAssertEqual(errno, ENOENT)
    }
}
