// Thousands of operations with random cancels and coalescing, repeated: the Operation-dependency hazard on Linux
// (SR-11333: a dependent released before its dependency finishes crashes corelibs) would show up here as SIGSEGV.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class StressTests: XCTestCase {
    func testThousandsOfOperationsWithRandomCancelsPriorityChangesAndCoalescing() throws {
        let rounds = ProcessInfo.processInfo.environment["DW_STRESS_ROUNDS"].flatMap(Int.init) ?? 3
        for round in 0..<rounds {
            try runRound(seed: UInt64(round + 1), requests: 1500, distinctURLs: 400)
        }
    }

    private func runRound(seed: UInt64, requests: Int, distinctURLs: Int) throws {
        let h = try Harness(slots: 4)
        defer { h.close() }
        var rng = SplitMix(seed: seed)
        let png = SampleImages.png(width: 2, height: 2)
        for i in 0..<distinctURLs {
            let route: Route = i % 7 == 0 ? .delayed(0.005, .ok(png)) : i % 13 == 0 ? .status(404) : .ok(png)
            h.server.setRoute("/p\(i).png", route)
        }
        let box = ResultBox()
        var tokens: [DWWebImageToken] = []
        for n in 0..<requests {
            let i = Int(rng.next() % UInt64(distinctURLs))
            let options: DWWebImageOptions = rng.next() % 3 == 0 ? [.noCache, .highPriority] : [.noCache]
            tokens.append(
                h.manager.downloadImage(withURL: h.server.url("/p\(i).png"), options: options) { box.set($0) })
            if rng.next() % 4 == 0, let victim = tokens.randomElement(using: &rng) { h.manager.cancel(victim) }
            if rng.next() % 5 == 0, let waiter = tokens.randomElement(using: &rng) {
                waiter.priority = DWWebImagePriority.allCases.randomElement(using: &rng)!  // re-files it, or is a no-op
            }
            if n % 200 == 0 { h.manager.removeOperation(byURL: h.server.url("/p\(i).png")) }
        }
        for _ in 0..<100 { if let victim = tokens.randomElement(using: &rng) { h.manager.cancel(victim) } }
        XCTAssertTrue(box.waitFor(count: requests, timeout: 60), "round \(seed): \(box.count)/\(requests) completions")
        // No download left; then the engine thread stopped and the work queue drained: every completion there
        // will be is on the callback queue. Drain it, then count.
        XCTAssertTrue(eventually(timeout: 10) { h.manager.activeDownloadCount == 0 })
        h.manager.invalidate()
        h.manager.workQueue.sync(flags: .barrier) {}
        h.drainCallbacks()
        XCTAssertEqual(box.count, requests, "exactly one completion per request")
        let results = box.all
        let codes = Set(results.compactMap { $0.error?.code })
        XCTAssertTrue(codes.isSubset(of: [.cancelled, .httpStatus]), "unexpected errors: \(codes)")
        // The server may briefly count a request the client already dropped, so check the client side.
        XCTAssertLessThanOrEqual(h.manager.maxTransfersInFlight, 4, "never more transfers than slots")
    }
}

/// A small deterministic PRNG so a failing round can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
