// DWShutdownSignals in-process: armed when `init` returns. A SIGTERM sent at once starts the graceful shutdown; it is
// neither discarded (the server would serve on until killed) nor fatal to the test runner. Armed again for a server
// started after another one stopped, in the same process.
import DWLocking
import Foundation
import Logging
import XCTest

@testable import DWWebImageServer

final class ShutdownSignalsTests: XCTestCase {
    func testASignalRightAfterInitStartsTheShutdownForEveryServerInTheProcess() {
        for (round, number) in [SIGTERM, SIGINT, SIGTERM].enumerated() {
            let reached = expectation(description: "round \(round + 1): signal \(number) started the shutdown")
            let signals = DWShutdownSignals(logger: Logger(label: "test")) { reached.fulfill() }
            kill(getpid(), number)
            wait(for: [reached], timeout: 20)
            signals.cancel()
        }
    }
}
