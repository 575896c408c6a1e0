// dwfetch and S3 (moto's server with IAM authentication on): s3:// URLs fetched signed, `-o s3://bucket/prefix`
// writing every output as an object, and `--shard K/N` splitting one list across N runs exactly once.
import DWTestPeers
import DWTestServer
import Foundation
import XCTest

final class DWFetchS3Tests: XCTestCase {
    func testS3SourcesAndOutputToTheStore() throws {
        let origin = try LoopbackHTTPServer()
        defer { origin.shutdown() }
        var images: [String: Data] = [:]
        for i in 0..<6 {
            let data = SampleImages.png(width: 8 + i, height: 8, seed: UInt8(i))
            images["/img\(i).png"] = data
            origin.setRoute("/img\(i).png", .ok(data))
        }
        let cat = SampleImages.png(width: 30, height: 20)
        let moto = try MotoS3(bucket: "media", objects: ["in/cat.png": cat])
        defer { moto.stop() }

        // dwfetch s3://…: signed with the AWS_* credentials on the --s3-endpoint.
        let fetched = try DWFetchProcess.run(
            [
                "--no-cache", "--retries", "0", "--json", "--s3-endpoint", moto.endpoint,
                "s3://media/in/cat.png"
            ], environment: moto.environment)
        let line = try XCTUnwrap(fetched.json().first, fetched.stdout + fetched.stderr)
        XCTAssertEqual(line["ok"] as? Bool, true, fetched.stdout)
        XCTAssertEqual(line["width"] as? Int, 30)
        var wrong = moto.environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "wrong"
        let refused = try DWFetchProcess.run(
            [
                "--no-cache", "--retries", "0", "--json", "--s3-endpoint", moto.endpoint,
                "s3://media/in/cat.png"
            ], environment: wrong)
        let error = try XCTUnwrap(refused.json().first?["error"] as? [String: Any], refused.stdout)
        XCTAssertEqual(error["code"] as? Int, 10004)
        XCTAssertEqual(error["http_status"] as? Int, 403)

        // -o s3://media/out: every image PUT (its SHA-256 in x-amz-content-sha256, signed); the listing has them all.
        let urls = images.keys.sorted().map { origin.url($0) } + ["s3://media/in/cat.png"]
        let run = try DWFetchProcess.run(
            [
                "--no-cache", "--retries", "0", "--json", "--s3-endpoint", moto.endpoint,
                "-o", "s3://media/out"
            ] + urls, environment: moto.environment)
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        let listed = try moto.objects(prefix: "out/")
        XCTAssertEqual(listed.count, 7, "\(listed.keys.sorted())")
        for (path, data) in images {
            XCTAssertEqual(listed["out" + path], data, path)
        }
        XCTAssertEqual(listed["out/cat.png"], cat)
        let paths = try run.json().compactMap { $0["path"] as? String }
        XCTAssertTrue(paths.contains("s3://media/out/img0.png"), "\(paths)")
    }

    func testShardsCoverAListExactlyOnce() throws {
        let origin = try LoopbackHTTPServer()
        defer { origin.shutdown() }
        let png = SampleImages.png(width: 4, height: 4)
        var urls: [String] = []
        for i in 0..<40 {
            origin.setRoute("/s\(i).png", .ok(png))
            urls.append(origin.url("/s\(i).png"))
        }
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("dwshard-\(UUID().uuidString).txt")
        try urls.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: list) }
        var seen: [String] = []
        for k in 1...4 {
            let run = try DWFetchProcess.run(["--no-cache", "--json", "--shard", "\(k)/4", "-i", list.path])
            XCTAssertEqual(run.status, 0, run.stderr)
            let taken = try run.json().compactMap { $0["url"] as? String }
            XCTAssertFalse(taken.isEmpty, "shard \(k) of 4 takes some of 40 URLs")
            seen += taken
        }
        XCTAssertEqual(seen.count, urls.count, "no URL taken twice")
        XCTAssertEqual(Set(seen), Set(urls), "every URL taken")
        XCTAssertEqual(try DWFetchProcess.run(["--shard", "5/4", urls[0]]).status, 2, "K must be within 1…N")
    }
}
