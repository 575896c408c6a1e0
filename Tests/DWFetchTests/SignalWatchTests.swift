// SignalWatch in-process: armed when `init` returns — a SIGTERM sent at once reaches the handler, neither discarded
// nor killing the test runner — and armed again for a watch made after one was cancelled (dwfetch --demo makes two
// runners, each with its own watch).
import DWSignals
import Foundation
import XCTest

final class SignalWatchTests: XCTestCase {
    func testASignalRightAfterInitReachesTheHandlerForEveryWatchInTheProcess() {
        for round in 1...3 {
            let reached = expectation(description: "round \(round): SIGTERM reached the handler")
            let watch = SignalWatch(signals: [SIGTERM]) { signal in
                if signal == SIGTERM { reached.fulfill() }
            }
            kill(getpid(), SIGTERM)
            wait(for: [reached], timeout: 20)
            watch.cancel()
        }
    }
}
