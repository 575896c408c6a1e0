// DWDiskAdmission: an original written from its Nth fetch on, among the keys remembered.
import DWWebImage
import Synchronization
import XCTest

final class DiskAdmissionTests: XCTestCase {
    func testAKeyIsAdmittedFromItsNthUseOn() {
        let twice = DWDiskAdmission(minUses: 2)
        XCTAssertFalse(twice.admits("a"))
        XCTAssertFalse(twice.admits("b"))
        XCTAssertTrue(twice.admits("a"))
        XCTAssertTrue(twice.admits("a"), "admitted every time after")
        XCTAssertTrue(twice.admits("b"))

        let thrice = DWDiskAdmission(minUses: 3)
        XCTAssertEqual((1...4).map { _ in thrice.admits("k") }, [false, false, true, true])

        let always = DWDiskAdmission(minUses: 1)
        XCTAssertTrue(always.admits("new"))
        XCTAssertEqual(DWDiskAdmission(minUses: 0).minUses, 1)
    }

    /// A flood of new keys makes the policy forget the older ones (bounded memory), never admit a key seen once.
    func testAFloodOfNewKeysForgetsOlderUsesAndAdmitsNone() {
        let admission = DWDiskAdmission(minUses: 2, remembers: 8)
        XCTAssertFalse(admission.admits("kept"))
        for n in 0..<4 { XCTAssertFalse(admission.admits("flood-\(n)")) }  // fills the newer generation
        XCTAssertTrue(admission.admits("kept"), "still within the last 8 keys: in the older generation")
        for n in 4..<200 { XCTAssertFalse(admission.admits("flood-\(n)"), "flood-\(n) seen once") }
        XCTAssertFalse(admission.admits("kept"), "forgotten after 196 newer keys")
        XCTAssertTrue(admission.admits("kept"))
    }

    /// Many threads counting the same keys: each key's second use is admitted, whichever thread makes it.
    func testConcurrentUsesAreEachCountedOnce() {
        let admission = DWDiskAdmission(minUses: 2)
        let admitted = LockedCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for k in 0..<500 where admission.admits("key-\(k)") { admitted.add(1) }
        }
        XCTAssertEqual(admitted.value, 500 * 7, "the first use of each of 500 keys refused, the other seven admitted")
    }
}

/// A count several threads add to.
private final class LockedCounter: Sendable {
    private let count = Mutex(0)
    func add(_ n: Int) { count.withLock { $0 += n } }
    var value: Int { count.withLock { $0 } }
}
