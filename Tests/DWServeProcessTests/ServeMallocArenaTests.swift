// glibc's malloc arenas in the running `dwfetch serve`: every thread allocates in the main heap, so freed memory of
// one thread is reused by the next and the peak RSS over many new variants stays low (bench/serve/memory).
import DWLocking
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ServeMallocArenaTests: ServeTestCase {
    func testConcurrentTransformsAllocateInTheMainArenaOnly() throws {
        #if os(Linux)
        origin.setRoute("/p.png", .ok(SampleImages.png(width: 256, height: 192, seed: 3)))
        let server = try serve(["-j", "4", "--workers", "2"])
        let source = origin.url("/p.png")
        let statuses = DWLock([Int]())
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            let response = try? server.get(ProxyPath.plain(source, options: "rs:fit:\(40 + i):\(40 + i)", ext: "jpg"))
            statuses.withLock { $0.append(response?.status ?? -1) }
        }
        XCTAssertEqual(statuses.withLock { $0 }, Array(repeating: 200, count: 16))
        let heaps = try Self.arenaHeaps(pid: server.process.processIdentifier)
        XCTAssertEqual(heaps, 0, "malloc arena heaps besides the main heap (capped too late?)")
        #endif
    }

    /// glibc's heaps of the arenas other than the main one, from /proc/PID/maps: each is an anonymous mapping at an
    /// address aligned to 64 MiB (HEAP_MAX_SIZE on 64-bit), read-write up to what the arena uses and reserved
    /// (`---p`) from there to 64 MiB.
    static func arenaHeaps(pid: Int32) throws -> Int {
        let heapMax: UInt64 = 64 << 20
        let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
        let rows = maps.split(separator: "\n").map { line -> (start: UInt64, end: UInt64, perms: String, path: Bool) in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let range = fields[0].split(separator: "-").map { UInt64($0, radix: 16) ?? 0 }
            return (range[0], range[1], String(fields[1]), fields.count > 5)
        }
        var heaps = 0
        for (i, row) in rows.enumerated() where !row.path && row.perms == "rw-p" && row.start % heapMax == 0 {
            let next = i + 1 < rows.count ? rows[i + 1] : nil
            let reserved = next.map { !$0.path && $0.perms == "---p" && $0.start == row.end } ?? false
            if row.end - row.start == heapMax || (reserved && next!.end == row.start + heapMax) { heaps += 1 }
        }
        return heaps
    }
}
