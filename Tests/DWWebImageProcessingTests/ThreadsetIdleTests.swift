// ThreadsetIdleTests: libvips 8.14.1 to 8.15.3 free a worker whose 15-second idle wait times out while another
// thread hands it work (a lost task, or a write into freed memory). CVips' ThreadsetIdleWait takes that wait's place:
// idle workers stay past the timeout, so none frees itself. The attack itself runs as a C program on libvips with
// the timeout shortened to 5 ms (Fixtures/threadset_race.c, threadset_widen.c), built with and without the fix.
import CVips
import DWLocking
import DWTestSupport
@testable import DWWebImageProcessing
import Foundation
import XCTest

final class ThreadsetIdleTests: XCTestCase {
    /// The threads named "libvips worker" (GLib names each thread libvips' thread set starts) in this process.
    private func libvipsWorkers() throws -> Int {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        return tasks.filter { task in
            let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .whitespacesAndNewlines) == "libvips worker"
        }.count
    }

    /// Averages of `pipelines` new images, all at once: each `vips_avg` runs a thread pool whose workers come from
    /// libvips' thread set.
    private func runPipelines(_ pipelines: Int) throws {
        let failures = DWLock(0)
        DispatchQueue.concurrentPerform(iterations: pipelines) { i in
            let side = 64 + i
            let pixels = [UInt8](repeating: UInt8(i), count: side * side * 3)
            var average = 0.0
            var image: OpaquePointer?
            guard cvips_from_memory(pixels, pixels.count, Int32(side), Int32(side), 3, &image) == 0, let image
            else { return failures.withLock { $0 += 1 } }
            defer { cvips_unref(image) }
            if cvips_avg(image, &average) != 0 || abs(average - Double(i)) > 0.001 { failures.withLock { $0 += 1 } }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0, "every pipeline computes its average")
    }

    func testIdleLibvipsWorkersOutliveTheThreadSetsIdleTimeout() throws {
        try Vips.start()
        try runPipelines(4)
        let before = try libvipsWorkers()
        XCTAssertGreaterThan(before, 0, "the pipelines ran on libvips' thread set")
        // libvips' own wait gives up after 15 s idle: past it, an affected version's workers would have freed
        // themselves (0 left), and the next task could have been handed to one doing so.
        Thread.sleep(forTimeInterval: 16)
        let after = try libvipsWorkers()
        if threadSetRaces {
            XCTAssertEqual(after, before, "libvips \(libvipsVersion): idle workers stay (their wait has no deadline)")
        }
        try runPipelines(4)  // and the set still runs work
    }

    /// The libvips loaded here as major × 10000 + minor × 100 + micro.
    private var libvipsVersion: Int {
        let parts = String(cString: cvips_version()).split(separator: ".").compactMap { Int($0) }
        return parts.count == 3 ? parts[0] * 10000 + parts[1] * 100 + parts[2] : 0
    }

    /// Whether the libvips loaded here is one whose thread set races (8.14.1 to 8.15.3), as ThreadsetIdleWait.c checks.
    private var threadSetRaces: Bool { (81401..<81504).contains(libvipsVersion) }

    func testAWorkerTimingOutWhileHandedWorkLosesNoTaskWithTheFix() throws {
        try Vips.start()
        let programs = try CAttackPrograms()
        defer { programs.remove() }
        let race = CAttackPrograms.fixture("threadset_race.c")
        let shortened = try [
            "LD_PRELOAD": programs.build(
                "widen.so", [CAttackPrograms.fixture("threadset_widen.c")], packages: ["vips"], shared: true)
        ]
        if threadSetRaces {
            // The attack works on this libvips: without the fix a task is lost within seconds.
            let plain = try ProcessRun.run(
                programs.build("plain", [race], packages: ["vips"]), ["30"], environment: shortened, timeout: 60)
            XCTAssertEqual(plain.status, 3, "libvips \(libvipsVersion) without the fix: \(plain.output)")
        }
        let fixed = try ProcessRun.run(
            programs.build("fixed", [race, CAttackPrograms.cvipsSource("ThreadsetIdleWait.c")], packages: ["vips"]),
            ["8"], environment: shortened, timeout: 60)
        XCTAssertFalse(fixed.signalled, fixed.errors)
        XCTAssertEqual(fixed.status, 0, "with the fix: \(fixed.output) \(fixed.errors)")
        XCTAssertTrue(fixed.output.contains("no lost task"), fixed.output)
    }
}
