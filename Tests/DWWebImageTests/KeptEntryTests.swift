// A body-only entry written in the callback block (dwfetch's tuning) is handed to the callers still open: the file
// this process wrote, whatever its path names later (another process's newer entry, nothing after an eviction), and
// the number of such descriptors is bounded. Real libcurl against the loopback server, real files.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class KeptEntryTests: XCTestCase {
    private func identity(fd: Int32) -> (UInt64, UInt64)? {
        var st = stat()
        return fstat(fd, &st) == 0 ? (UInt64(st.st_dev), UInt64(st.st_ino)) : nil
    }

    private func identity(path: String) -> (UInt64, UInt64)? {
        var st = stat()
        return lstat(path, &st) == 0 ? (UInt64(st.st_dev), UInt64(st.st_ino)) : nil
    }

    private func contents(of fd: Int32, count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count + 1)
        let n = pread(fd, &bytes, bytes.count, 0)
        return Data(bytes.prefix(max(0, n)))
    }

    func testAnEntryWrittenInTheCallbacksIsTheOpenFileWhateverItsPathNamesLater() throws {
        let h = try Harness()
        defer { h.close() }
        h.cache.configuration.bodyOnlyEntries = true
        h.manager.writesCacheInCallbacks = true
        let png = SampleImages.png(width: 9, height: 9, seed: 4)
        h.server.setRoute("/kept.png", .ok(png, contentType: "image/png"))
        let url = h.server.url("/kept.png")
        let image = try h.fetch(url).get()
        let file = try XCTUnwrap(image.entryFile, "a body-only entry's file")
        guard case .open(let kept) = file.identity else { return XCTFail("kept open: \(file.identity)") }
        XCTAssertEqual(file.path, h.cache.fileURL(forKey: url).path)
        XCTAssertEqual(file.size, png.count)
        let written = try XCTUnwrap(identity(fd: kept.fd))
        XCTAssertTrue(identity(path: file.path).map { $0 == written } ?? false, "the path names it after the write")
        XCTAssertEqual(contents(of: kept.fd, count: png.count), png, "readable: a kernel copy can start from it")

        // Another process replaces the entry: the descriptor is still this run's file and bytes.
        let other = file.path + ".other"
        try Data("another process's newer entry".utf8).write(to: URL(fileURLWithPath: other))
        XCTAssertEqual(rename(other, file.path), 0)
        XCTAssertFalse(identity(path: file.path).map { $0 == written } ?? true)
        XCTAssertTrue(identity(fd: kept.fd).map { $0 == written } ?? false)
        XCTAssertEqual(contents(of: kept.fd, count: png.count), png)

        // Writing it again from the default path (the write queue) keeps nothing open: device and inode instead.
        h.manager.writesCacheInCallbacks = false
        let again = try h.fetch(url, options: [.refreshCached]).get()
        XCTAssertTrue(h.cache.waitForPendingWrites())
        if let file = again.entryFile, case .open = file.identity { XCTFail("only the callback write keeps it open") }
    }

    func testKeptDescriptorsAreBoundedAndGoBackWhenReleased() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dwkept-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("f").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data([1])))
        var kept: [OpenedEntry] = []
        while kept.count < OpenedEntry.keptLimit + 8 {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            XCTAssertGreaterThanOrEqual(fd, 0)
            guard let entry = OpenedEntry.adopting(fd, path: path) else {
                close(fd)  // over the limit: the caller closes it
                break
            }
            kept.append(entry)
        }
        XCTAssertEqual(kept.count, OpenedEntry.keptLimit, "no more than the limit at once")
        let fd = kept[0].fd
        kept.removeFirst()
        XCTAssertEqual(fcntl(fd, F_GETFD), -1, "released: closed")
        let again = open(path, O_RDONLY | O_CLOEXEC)
        XCTAssertNotNil(OpenedEntry.adopting(again, path: path), "one place went back")
    }
}
