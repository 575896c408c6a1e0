// HeapTuningTests: memory a fetch run frees at the top of a heap is used again, not given back and faulted in again.
import XCTest
import Glibc
@testable import DWFetchCLI

final class HeapTuningTests: XCTestCase {
    /// Minor page faults of the calling thread so far.
    private func threadMinorFaults() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD (Linux; Glibc's module does not export the name)
        return usage.ru_minflt
    }

    /// Allocates, touches and frees the sizes a download cycles through (libcurl's 100 KiB receive buffer, a body),
    /// newest first so that what is freed joins the top of the heap; the page faults that took.
    private func cycle() -> Int {
        let before = threadMinorFaults()
        let blocks = (0..<8).map { _ in malloc(100 * 1024)! }
        for block in blocks { memset(block, 1, 100 * 1024) }
        for block in blocks.reversed() { free(block) }
        return threadMinorFaults() - before
    }

    func testWhatARunFreesIsUsedAgainWithoutFaultingItInAgain() {
        XCTAssertTrue(HeapTuning.applyForFetchRun())
        _ = cycle()  // the first time, the pages come from the kernel
        // glibc's default gives back all but 128 KiB of the 800 KiB freed each time: ~170 faults a cycle.
        let faults = (0..<10).reduce(0) { sum, _ in sum + cycle() }
        XCTAssertLessThan(faults, 50, "freed memory went back to the kernel and was faulted in again")
    }
}
