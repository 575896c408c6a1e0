// Configuration.privateFiles: what the cache writes is the user's alone (0600 files, 0700 directories).
@testable import DWWebImage
import Foundation
import XCTest

final class PrivateFilesTests: XCTestCase {
    func testPrivateFilesAre0600InDirectories0700WhateverTheUmask() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dw-private-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let previous = umask(0o022)  // the usual umask: it would leave 0644 and 0755
        defer { umask(previous) }
        var configuration = DWWebImageCache.Configuration(rootDirectory: root, cacheSpace: "space")
        configuration.privateFiles = true
        let cache = DWWebImageCache(configuration: configuration, notificationCenter: NotificationCenter())
        try cache.store(Data("entry".utf8), forKey: "k", policy: [.disk])
        let partial = try XCTUnwrap(
            PartialStore(path: root.appendingPathComponent("partial").path, privateFiles: true)
                .create(url: "http://127.0.0.1/p"))
        partial.close(remove: false)
        for (path, expected) in [
            (root.path, 0o700), (cache.directory.path, 0o700), (cache.fileURL(forKey: "k").path, 0o600),
            (root.appendingPathComponent("partial").path, 0o700)
        ] {
            var st = stat()
            XCTAssertEqual(stat(path, &st), 0, path)
            XCTAssertEqual(Int(st.st_mode) & 0o777, expected, "\(path): \(String(Int(st.st_mode) & 0o777, radix: 8))")
        }
    }

    func testTheDefaultStaysShareable() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dw-shared-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let previous = umask(0o022)
        defer { umask(previous) }
        let cache = DWWebImageCache(
            configuration: .init(rootDirectory: root, cacheSpace: "space"),
            notificationCenter: NotificationCenter())
        try cache.store(Data("entry".utf8), forKey: "k", policy: [.disk])
        var st = stat()
        XCTAssertEqual(stat(cache.fileURL(forKey: "k").path, &st), 0)
        XCTAssertEqual(Int(st.st_mode) & 0o777, 0o644)
    }
}
