// How many threads, queues and tasks a serve miss crosses, counted by the hand-offs the pipeline notes (DWHopTrace).
import DWLocking
import DWTestServer
@testable import DWWebImageServer
import Hummingbird
import HummingbirdTesting
import XCTest

extension RoutesTests {
    /// A miss (neither the variant nor its original cached) goes request task → lookup queue → start queue → engine
    /// thread (→ work queue for a body the engine thread does not judge itself) → transform worker → the request
    /// task again, resumed by the worker: at most seven. No deadline task and no callback-queue hop on the way.
    func testAServeMissCrossesAtMostSevenThreadsOrTasks() async throws {
        origin.setRoute("/hops.png", .ok(png))
        let server = try server()
        let uri = plain("/hops.png", options: "rs:fit:16:16")
        try await standaloneApp(server).test(.router) { client in
            let path = try await DWHopTrace.record {
                try await client.execute(uri: uri, method: .get) { response in
                    XCTAssertEqual(response.status, .ok)
                }
            }
            let route = path.joined(separator: " → ")
            XCTAssertEqual(path.first, "request task", route)
            XCTAssertTrue(path.contains("engine thread") && path.contains("transform worker"), "a real miss: \(route)")
            XCTAssertFalse(path.contains("callback queue"), route)
            XCTAssertLessThanOrEqual(path.count, 7, route)
        }
    }
}
