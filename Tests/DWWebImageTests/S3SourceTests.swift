// s3://bucket/key sources against moto's S3 server with IAM authentication on: signed by libcurl (SigV4), refused
// when unsigned or signed with the wrong secret (10004 with 403), resumed with Range after a cut, cached by s3 URL.
import DWTestPeers
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class S3SourceTests: TemporaryRootTestCase {
    override var rootPrefix: String { "dws3" }

    /// Bigger than the 256 KiB a body needs to be kept on disk for resuming.
    private let photo = SampleImages.bmp(width: 400, height: 500)
    private let small = SampleImages.png(width: 20, height: 10)

    func testSignedGetWrongSecretUnsignedAndResume() throws {
        let moto = try MotoS3(
            bucket: "images", objects: ["cat.png": small, "dir/photo one.bmp": photo, "big.bmp": photo])
        defer { moto.stop() }
        let s3 = DWS3Configuration(
            endpoint: moto.endpoint, region: moto.region, accessKeyID: moto.accessKeyID,
            secretAccessKey: moto.secretAccessKey)

        // A correct SigV4 GET; the cache key is the s3:// URL, so the second request makes none.
        let image = try fetch("s3://images/cat.png", s3).get()
        XCTAssertEqual(image.data, small)
        XCTAssertEqual(image.pixelWidth, 20)
        let again = try fetch("s3://images/cat.png", s3).get()
        XCTAssertEqual(again.source, .disk, "cached under its s3:// URL")
        XCTAssertNotNil(DWWebImageCache(rootDirectory: root).objCache(forKey: "s3://images/cat.png"))
        // A key with a space (percent-encoded in the canonical URI, signed as such).
        XCTAssertEqual(try fetch("s3://images/dir/photo one.bmp", s3).get().data, photo)

        // The wrong secret: moto refuses the signature as S3 does.
        var wrong = s3
        wrong.secretAccessKey = "not-the-secret"
        let refused = fetch("s3://images/cat.png", wrong, options: .refreshCached)
        XCTAssertEqual(refused.failure?.code, .httpStatus)
        XCTAssertEqual(refused.failure?.httpStatus, 403)
        // No credentials at all: unsigned, refused too.
        let unsigned = fetch("s3://images/cat.png", DWS3Configuration(endpoint: moto.endpoint), options: .refreshCached)
        XCTAssertEqual(unsigned.failure?.httpStatus, 403)
        // A missing key is the store's 404; a bare bucket is not an object URL (10002).
        XCTAssertEqual(fetch("s3://images/missing.png", s3).failure?.httpStatus, 404)
        XCTAssertEqual(fetch("s3://images", s3).failure?.code, .invalidURL)

        // Range resume against the store: the first transfer is cut after 400 KB, the next asks for the rest
        // (signed, Range and If-Range included) and the bytes are the object's.
        let proxy = try CuttingProxy(targetPort: moto.peer.port)
        defer { proxy.shutdown() }
        var viaProxy = s3
        viaProxy.endpoint = proxy.baseURL
        proxy.cutNextConnection(after: 400_000)
        XCTAssertEqual(fetch("s3://images/big.bmp", viaProxy).failure?.code, .transport)
        _ = proxy.clientBytes(clear: true)
        let resumed = try fetch("s3://images/big.bmp", viaProxy).get()
        let request = proxy.clientBytes(clear: true)
        XCTAssertTrue(request.contains("Range: bytes="), request)
        XCTAssertTrue(request.contains("x-amz-content-sha256: "), request)
        XCTAssertTrue(request.contains("Authorization: AWS4-HMAC-SHA256 "), request)
        XCTAssertEqual(resumed.data, photo)
        let metrics = try XCTUnwrap(resumed.metrics)
        XCTAssertGreaterThan(metrics.resumedFrom, 256 * 1024)
        XCTAssertEqual(metrics.httpStatus, 206)
    }

    /// `facts(withURL:)` of an `s3://` URL: one signed Range request to the endpoint, the object's head read; the
    /// wrong secret is the store's 403, as for a download.
    func testFactsOfAnS3ObjectAreSignedLikeItsDownload() async throws {
        let moto = try MotoS3(bucket: "images", objects: ["big.bmp": photo])
        defer { moto.stop() }
        let s3 = DWS3Configuration(
            endpoint: moto.endpoint, region: moto.region, accessKeyID: moto.accessKeyID,
            secretAccessKey: moto.secretAccessKey)
        func manager(_ s3: DWS3Configuration) -> DWWebImageManager {
            var configuration = DWWebImageManager.Configuration()
            configuration.retryCount = 0
            configuration.s3 = s3
            let center = NotificationCenter()
            return DWWebImageManager(
                cache: DWWebImageCache(rootDirectory: root, notificationCenter: center),
                configuration: configuration, notificationCenter: center, removeExpiredAtStart: false)
        }
        let signed = manager(s3)
        defer { signed.invalidate() }
        let facts = try await signed.facts(withURL: "s3://images/big.bmp")
        XCTAssertEqual(facts.format, .bmp)
        XCTAssertEqual(facts.pixelWidth, 400)
        XCTAssertEqual(facts.pixelHeight, 500)
        var wrong = s3
        wrong.secretAccessKey = "not-the-secret"
        let refused = manager(wrong)
        defer { refused.invalidate() }
        do {
            _ = try await refused.facts(withURL: "s3://images/big.bmp")
            XCTFail("the wrong secret is refused")
        } catch {
            XCTAssertEqual(error.code, .httpStatus)
            XCTAssertEqual(error.httpStatus, 403)
        }
    }

    func testLocationsAndEnvironment() {
        XCTAssertEqual(DWS3Location("s3://bucket/a/b.png"), DWS3Location(bucket: "bucket", key: "a/b.png"))
        XCTAssertNil(DWS3Location("s3://Bad_Bucket/x"))
        XCTAssertNil(DWS3Location("https://bucket/x"))
        for escape in [
            "s3://bucket/../other/x.png", "s3://bucket/%2e%2e/other/x.png", "s3://bucket/a/./b.png",
            "s3://bucket/a/%2E/b.png", "s3://bucket/..", "s3://bucket/a\\..\\b.png"
        ] {
            XCTAssertNil(DWS3Location(escape), "a dot segment never parses: \(escape)")
        }
        XCTAssertEqual(DWS3Location("s3://bucket/..a/b..png/...")?.key, "..a/b..png/...", "dots inside names are kept")
        XCTAssertEqual(DWS3Location("s3://bucket/%252e%252e/x.png")?.key, "%2e%2e/x.png", "decoded once, no more")
        XCTAssertEqual(
            DWS3Configuration(endpoint: "http://s3").httpURL(bucket: "b", key: "x/%2e%2e/y"),
            "http://s3/b/x/%252e%252e/y")
        XCTAssertEqual(
            DWS3Configuration(endpoint: "http://s3").httpURL(bucket: "b", key: "x/../y"), "http://s3/b/x/%2E%2E/y")
        XCTAssertEqual(DWS3Location("s3://bucket/prefix")?.appending("x.png").url, "s3://bucket/prefix/x.png")
        let env = DWS3Configuration.fromEnvironment([
            "AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S",
            "AWS_SESSION_TOKEN": "T", "AWS_REGION": "eu-west-3"
        ])
        XCTAssertEqual(env.endpoint, "https://s3.eu-west-3.amazonaws.com")
        XCTAssertEqual(env.sigV4Provider, "aws:amz:eu-west-3:s3")
        XCTAssertEqual(
            env.signingHeaders(),
            [
                "x-amz-content-sha256: \(DWS3Configuration.emptyPayloadSHA256)",
                "x-amz-security-token: T"
            ])
        XCTAssertEqual(
            env.httpURL(bucket: "b", key: "a b/c+d.png"), "https://s3.eu-west-3.amazonaws.com/b/a%20b/c%2Bd.png")
    }

    /// One fetch by a new manager over the test's cache root, no retries.
    private func fetch(_ url: String, _ s3: DWS3Configuration, options: DWWebImageOptions = [])
        -> Result<DWImage, DWWebImageError>
    {
        let center = NotificationCenter()
        let cache = DWWebImageCache(rootDirectory: root, notificationCenter: center)
        var configuration = DWWebImageManager.Configuration()
        configuration.retryCount = 0
        configuration.s3 = s3
        let manager = DWWebImageManager(
            cache: cache, configuration: configuration, notificationCenter: center,
            removeExpiredAtStart: false)
        defer {
            _ = cache.waitForPendingWrites()
            manager.invalidate()
        }
        let box = ResultBox()
        manager.downloadImage(withURL: url, options: options) { box.set($0) }
        return box.wait(timeout: 30) ?? .failure(.cancelled(url))
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
