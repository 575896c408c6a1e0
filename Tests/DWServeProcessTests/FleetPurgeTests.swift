// A purge across the fleet: bench/serve/purge-fleet posts the signed purge to each instance's admin listener, then
// PURGEs Varnish by xkey; and a purge by tag on an instance, which records the sources it served under each tag.
import DWTestPeers
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class FleetPurgeTests: ServeTestCase {
    let key = "736563726574", salt = "68656C6C6F"

    /// Three instances behind Varnish: p.png's variants are cached in Varnish and on their instance; one
    /// purge-fleet run drops them everywhere (the next request reaches the origin once, its other variant then comes
    /// from the refetched original), q.png stays a Varnish hit; then the same by tag.
    func testPurgeFleetDropsASourceFromEveryInstanceAndVarnish() throws {
        for name in ["p", "q", "r"] { origin.setRoute("/\(name).png", .ok(SampleImages.png(width: 64, height: 48))) }
        let instances = try (0..<3).map { _ in try serve(["--key", key, "--salt", salt]) }
        let varnish = try VarnishFleet(ports: instances.map(\.port))
        defer { varnish.peer.stop() }
        func get(_ name: String, _ options: String) throws -> String? {
            let path = "/\(options)/plain/\(origin.url("/\(name).png"))"
            let response = try HTTPClient.request(
                port: varnish.port,
                target: "/" + ServeAttackTests.sign(path, key: key, salt: salt) + path)
            XCTAssertEqual(response.status, 200, "\(name) \(options): \(response.text)")
            return response.header("X-Cache")
        }
        let requests = [("p", "w:10"), ("p", "w:20"), ("q", "w:10"), ("r", "tag:news/w:10")]
        XCTAssertEqual(try requests.map(get), ["MISS", "MISS", "MISS", "MISS"])
        XCTAssertEqual(try requests.map(get), ["HIT", "HIT", "HIT", "HIT"])

        let run = try purgeFleet(instances, varnish: varnish.port, ["--source", origin.url("/p.png")])
        XCTAssertEqual(run.status, 0, run.output)
        let answers = run.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(answers.count, 4, "three instances and Varnish: \(run.output)")
        let originals = answers.prefix(3).compactMap { ($0["answer"] as? String).flatMap(Self.originals) }
        XCTAssertEqual(originals.reduce(0, +), 1, "the original was on one instance: \(run.output)")
        XCTAssertEqual(answers.last?["answer"] as? String, "Purged 2", "both variants left Varnish")

        XCTAssertEqual(try get("p", "w:10"), "MISS")
        XCTAssertEqual(origin.requestCount(path: "/p.png"), 2, "the next request reached the origin once")
        XCTAssertEqual(try get("p", "w:20"), "MISS")
        XCTAssertEqual(origin.requestCount(path: "/p.png"), 2, "once, fleet-wide")
        XCTAssertEqual(try get("q", "w:10"), "HIT", "another source is untouched")

        let byTag = try purgeFleet(instances, varnish: varnish.port, ["--tag", "news"])
        XCTAssertEqual(byTag.status, 0, byTag.output)
        XCTAssertEqual(try get("r", "tag:news/w:10"), "MISS")
        XCTAssertEqual(origin.requestCount(path: "/r.png"), 2, "the tag's source left its instance too")
        XCTAssertEqual(origin.requestCount(path: "/q.png"), 1)
    }

    /// `POST /purge {"tags": ["news"]}` on one instance drops the sources it served under `tag:news` — originals and
    /// variants — and nothing else.
    func testPurgeByTagOnAnInstance() throws {
        for name in ["p", "q", "r"] { origin.setRoute("/\(name).png", .ok(SampleImages.png(width: 64, height: 48))) }
        let server = try serve(["--key", key, "--salt", salt])
        func get(_ name: String, _ options: String) throws -> Int {
            let path = "/\(options)/plain/\(origin.url("/\(name).png"))"
            return try server.get("/" + ServeAttackTests.sign(path, key: key, salt: salt) + path).status
        }
        let requests = [("p", "tag:news/w:10"), ("p", "w:20"), ("q", "tag:news/w:10"), ("r", "tag:sport/w:10")]
        for (name, options) in requests { XCTAssertEqual(try get(name, options), 200) }
        let body = Array(#"{"tags": ["news"]}"#.utf8)
        let purged = try HTTPClient.request(
            port: try XCTUnwrap(server.metricsPort), target: "/purge",
            headers: ["X-Signature": hmac(body)], method: "POST", body: body)
        XCTAssertEqual(purged.status, 200, purged.text)
        XCTAssertEqual(Self.originals(purged.text), 2, "p.png and q.png: \(purged.text)")
        for (name, options) in requests { XCTAssertEqual(try get(name, options), 200) }
        XCTAssertEqual(origin.requestCount(path: "/p.png"), 2, "fetched again, once for both variants")
        XCTAssertEqual(origin.requestCount(path: "/q.png"), 2)
        XCTAssertEqual(origin.requestCount(path: "/r.png"), 1, "another tag's source is untouched")
    }

    /// bench/serve/purge-fleet with the instances' admin ports, Varnish's port and `args`: exit status and stdout.
    private func purgeFleet(_ instances: [ServeProcess], varnish: Int, _ args: [String])
        throws -> (status: Int32, output: String)
    {
        let script = SourceTree.url("bench/serve/purge-fleet").path
        let admins = try instances.flatMap { ["--admin", "127.0.0.1:\(try XCTUnwrap($0.metricsPort))"] }
        // The shell prints the exit status: Foundation reaps children on one monitor thread, which waiting on a
        // child while varnishd lives can block (FleetTests), so the test only reads the output to its end.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments =
            [
                "-c", #"python3 "$0" "$@"; echo "exit=$?""#, script, "--key", key,
                "--varnish", "127.0.0.1:\(varnish)"
            ] + admins + args
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = output.split(separator: "\n")
        let status = try XCTUnwrap(lines.last.flatMap { Int32($0.dropFirst("exit=".count)) }, output)
        return (status, lines.dropLast().joined(separator: "\n"))
    }

    /// `originals` of a purge answer.
    private static func originals(_ answer: String) -> Int? {
        (try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Int])?["originals"]
    }

    private func hmac(_ body: [UInt8]) -> String { AdminRequest.signature(of: body, keyHex: key) }
}
