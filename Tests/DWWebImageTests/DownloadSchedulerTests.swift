// The scheduler's rules, tested on the value type itself: no sockets, no clocks.
import DWTestSupport
import XCTest

@testable import DWWebImage

final class DownloadSchedulerTests: XCTestCase {
    private typealias Scheduler = DownloadScheduler<Int, Int>

    private func demand(_ priority: DWWebImagePriority = .normal, prefetch: Bool = false) -> DownloadDemand {
        DownloadDemand(priority: priority, prefetchOnly: prefetch)
    }

    /// Takes every job the scheduler hands out one slot at a time (each ends before the next starts).
    private func drainOneByOne(_ s: inout Scheduler) -> [Int] {
        var order: [Int] = []
        while true {
            let next = s.next()
            guard let job = next.first else { return order }
            XCTAssertEqual(next.count, 1)
            order.append(job)
            s.end(job)
        }
    }

    func testNewestFirstWithinAPriority() {
        var s = Scheduler()
        s.maxConcurrent = 1
        for id in 1...5 { s.enqueue(id, job: id, host: "a:80", demand: demand()) }
        XCTAssertEqual(drainOneByOne(&s), [5, 4, 3, 2, 1])
    }

    func testOldestFirstWithinAPriorityWhenAsked() {
        var s = Scheduler()
        s.maxConcurrent = 1
        s.newestFirst = false
        for id in 1...5 { s.enqueue(id, job: id, host: "a:80", demand: demand()) }
        s.update(2, demand: demand(), asked: true)  // a joining caller keeps its place
        s.enqueue(6, job: 6, host: "a:80", demand: demand(.high))
        XCTAssertEqual(drainOneByOne(&s), [6, 1, 2, 3, 4, 5])
    }

    func testOldestFirstKeepsListOrderThroughASlidingWindow() {
        // dwfetch's shape: a window of queued URLs, one new one each time a slot frees; none may wait behind later ones.
        var s = Scheduler()
        s.maxConcurrent = 2
        s.newestFirst = false
        var queued = 0
        while queued < 8 {
            queued += 1
            s.enqueue(queued, job: queued, host: "a:80", demand: demand())
        }
        var order: [Int] = s.next()
        while order.count < 500 {
            s.end(order[order.count - 2])
            queued += 1
            s.enqueue(queued, job: queued, host: "a:80", demand: demand())
            order += s.next()
        }
        XCTAssertEqual(order, Array(1...500))
    }

    func testFivePrioritiesInOrderThenNewestFirst() {
        var s = Scheduler()
        s.maxConcurrent = 1
        let levels: [DWWebImagePriority] = [.normal, .veryLow, .high, .low, .veryHigh, .normal, .low]
        for (id, level) in levels.enumerated() { s.enqueue(id, job: id, host: "a:80", demand: demand(level)) }
        XCTAssertEqual(drainOneByOne(&s), [4, 2, 5, 0, 6, 3, 1])
    }

    func testEverySlotIsFilledAndAFreedSlotIsRefilledAtOnce() {
        var s = Scheduler()
        s.maxConcurrent = 3
        for id in 1...10 { s.enqueue(id, job: id, host: "a:80", demand: demand()) }
        XCTAssertEqual(s.next(), [10, 9, 8])
        XCTAssertEqual(s.next(), [], "no slot is free")
        XCTAssertEqual(s.runningCount, 3)
        s.end(9)
        XCTAssertEqual(s.next(), [7])
        s.maxConcurrent = 5
        XCTAssertEqual(s.next(), [6, 5], "a raised limit is used at once")
        XCTAssertEqual(s.waitingCount, 4)
    }

    func testPerHostCapLetsAnotherHostProceed() {
        var s = Scheduler()
        s.maxPerHost = 2
        for id in 1...6 { s.enqueue(id, job: id, host: "a:80", demand: demand()) }
        s.enqueue(7, job: 7, host: "b:80", demand: demand(.low))
        s.enqueue(8, job: 8, host: "b:80", demand: demand(.low))
        XCTAssertEqual(s.next(), [6, 5, 8, 7], "host a at its cap; b's low work takes the free slots")
        s.end(6)
        XCTAssertEqual(s.next(), [4])
    }

    func testPrefetchCapAndLifting() {
        var s = Scheduler()
        s.maxPrefetches = 2
        for id in 1...12 { s.enqueue(id, job: id, host: "a:80", demand: demand(.low, prefetch: true)) }
        XCTAssertEqual(s.next(), [12, 11], "two prefetches although four slots are free")
        // Someone asks for 3 (deep in the list): it is wanted now, at their priority, and starts at once.
        s.update(3, demand: demand(.normal), asked: true)
        XCTAssertEqual(s.next(), [3])
        // Someone joins running prefetch 12: it stops counting against the cap, so another prefetch may start.
        s.update(12, demand: demand(.normal), asked: true)
        XCTAssertEqual(s.next(), [10])
        XCTAssertEqual(s.next(), [])
        s.end(11)
        XCTAssertEqual(s.next(), [9])
    }

    func testARaisedPriorityCountsAtTheNextDecisionAndKeepsItsAge() {
        var s = Scheduler()
        s.maxConcurrent = 1
        for id in 1...4 { s.enqueue(id, job: id, host: "a:80", demand: demand(.low)) }
        s.update(2, demand: demand(.high), asked: false)
        s.update(1, demand: demand(.high), asked: false)
        XCTAssertEqual(drainOneByOne(&s), [2, 1, 4, 3], "raised ones first, newest of them first; their age kept")
    }

    func testAJoiningCallerMakesADownloadTheNewest() {
        var s = Scheduler()
        s.maxConcurrent = 1
        for id in 1...4 { s.enqueue(id, job: id, host: "a:80", demand: demand()) }
        s.update(1, demand: demand(), asked: true)
        XCTAssertEqual(drainOneByOne(&s), [1, 4, 3, 2])
    }

    func testAbandonedOrEndedWhileWaitingIsNeverStarted() {
        var s = Scheduler()
        s.maxConcurrent = 1
        for id in 1...4 { s.enqueue(id, job: id, host: "a:80", demand: demand()) }
        s.update(4, demand: nil, asked: false)  // every caller cancelled
        s.end(2)  // the download ended while it waited
        XCTAssertEqual(s.waitingCount, 2)
        XCTAssertEqual(drainOneByOne(&s), [3, 1])
    }

    func testManyReFilingsLeaveOneLiveRecordEach() {
        var s = Scheduler()
        s.maxConcurrent = 1
        for id in 1...3 { s.enqueue(id, job: id, host: "a:80", demand: demand()) }
        for round in 0..<50 {
            let level: DWWebImagePriority = round % 2 == 0 ? .high : .normal
            s.update(1, demand: demand(level), asked: round % 3 == 0)
        }
        XCTAssertEqual(drainOneByOne(&s), [1, 3, 2], "each job once, whatever stale records were left behind")
    }

    /// Random operations against a brute-force model of the rules: every decision must agree.
    func testAgreesWithABruteForceModelUnderRandomOperations() {
        agreesWithABruteForceModel(newestFirst: true)
    }

    /// The same, oldest first.
    func testOldestFirstAgreesWithABruteForceModelUnderRandomOperations() {
        agreesWithABruteForceModel(newestFirst: false)
    }

    private func agreesWithABruteForceModel(newestFirst: Bool) {
        struct Model {
            var waiting: [Int: (host: String, demand: DownloadDemand, sequence: Int)] = [:]
            var running: [Int: (host: String, prefetch: Bool)] = [:]
            var sequence = 0
            let slots = 4, perHost = 2, prefetches = 1
            let newestFirst: Bool

            mutating func next() -> [Int] {
                var out: [Int] = []
                while running.count < slots {
                    let prefetching = running.values.filter(\.prefetch).count
                    let perHostCount = Dictionary(running.values.map { ($0.host, 1) }, uniquingKeysWith: +)
                    let eligible = waiting.filter { _, w in
                        perHostCount[w.host, default: 0] < perHost
                            && (!w.demand.prefetchOnly || prefetching < prefetches)
                    }
                    // Highest priority; among those, wanted before prefetch-only only through age (newest or oldest first).
                    let sign = newestFirst ? 1 : -1
                    let age = { (sequence: Int) in sign * sequence }
                    guard
                        let best = eligible.max(by: { a, b in
                            (a.value.demand.priority.rawValue, age(a.value.sequence))
                                < (b.value.demand.priority.rawValue, age(b.value.sequence))
                        })
                    else { break }
                    waiting[best.key] = nil
                    running[best.key] = (best.value.host, best.value.demand.prefetchOnly)
                    out.append(best.key)
                }
                return out
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            var s = Scheduler()
            s.maxConcurrent = 4
            s.maxPerHost = 2
            s.maxPrefetches = 1
            s.newestFirst = newestFirst
            var m = Model(newestFirst: newestFirst)
            var nextID = 0
            for _ in 0..<400 {
                let levels: [DWWebImagePriority] = [.veryLow, .low, .normal, .high, .veryHigh]
                let d = DownloadDemand(
                    priority: levels.randomElement(using: &generator)!,
                    prefetchOnly: Bool.random(using: &generator))
                switch Int.random(in: 0..<10, using: &generator) {
                case 0...3:
                    nextID += 1
                    let host = ["a", "b", "c"].randomElement(using: &generator)!
                    s.enqueue(nextID, job: nextID, host: host, demand: d)
                    m.sequence += 1
                    m.waiting[nextID] = (host, d, m.sequence)
                case 4...5:
                    guard let id = m.waiting.keys.randomElement(using: &generator) else { continue }
                    let asked = Bool.random(using: &generator)
                    s.update(id, demand: d, asked: asked)
                    let renewed = asked && newestFirst  // oldest first, a joining caller keeps the entry's age
                    if renewed { m.sequence += 1 }
                    m.waiting[id] = (m.waiting[id]!.host, d, renewed ? m.sequence : m.waiting[id]!.sequence)
                case 6:
                    guard let id = m.running.keys.randomElement(using: &generator) else { continue }
                    s.update(id, demand: d, asked: true)
                    m.running[id]!.prefetch = d.prefetchOnly
                case 7:
                    guard let id = m.waiting.keys.randomElement(using: &generator) else { continue }
                    s.update(id, demand: nil, asked: false)
                    m.waiting[id] = nil
                default:
                    guard let id = m.running.keys.randomElement(using: &generator) else { continue }
                    s.end(id)
                    m.running[id] = nil
                }
                XCTAssertEqual(s.next(), m.next())
                XCTAssertEqual(s.waitingCount, m.waiting.count)
                XCTAssertEqual(s.runningCount, m.running.count)
            }
        }
    }
}
