// TransportPreloadTests: the preload's wait returns only when its thread is gone, thread-local destructors included.
import DWFetchCLI
import Foundation
import Synchronization
import XCTest

/// Set by the thread-local destructor the test's load registers, after it has slept (so a `wait` that returns
/// before the thread's destructors ran sees it false).
private let destructorRan = Atomic<Bool>(false)

final class TransportPreloadTests: XCTestCase {
    /// What OpenSSL does on the preload thread: per-thread state freed by a thread-local destructor. `dwfetch` calls
    /// `exit` (and so OpenSSL's `atexit` clean-up) right after `wait`; the destructor must have run by then, or the
    /// two free the same state at once (a short `--no-cache` run crashed in `malloc_consolidate`). A semaphore the
    /// load signals at its end returned while the destructor still slept.
    func testWaitReturnsAfterTheThreadLocalDestructorsRan() {
        destructorRan.store(false, ordering: .sequentiallyConsistent)
        let preload = TransportPreload {
            var key = pthread_key_t()
            pthread_key_create(&key) { _ in
                usleep(200_000)
                destructorRan.store(true, ordering: .sequentiallyConsistent)
            }
            pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        }
        preload.wait()
        XCTAssertTrue(destructorRan.load(ordering: .sequentiallyConsistent), "wait returned before the thread ended")
        preload.wait()  // a second wait returns at once
    }
}
