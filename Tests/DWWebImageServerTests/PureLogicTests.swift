// The server's pure logic, in-process and fast: URL parser, signer, CIDR, address policy, negotiation, statuses.
import DWTestServer
import DWWebImage
import DWWebImageProcessing
@testable import DWWebImageServer
import HTTPTypes
import Hummingbird
import XCTest

final class URLParserTests: XCTestCase {
    func testPlainSourceWithOptionsAndExtension() throws {
        let url = try DWProxyURL(target: "/insecure/rs:fill:300:200/q:70/plain/http://example.com/a%20b.png@webp")
        XCTAssertEqual(url.signature, "insecure")
        XCTAssertEqual(url.signedPath, "/rs:fill:300:200/q:70/plain/http://example.com/a%20b.png@webp")
        XCTAssertEqual(url.source, "http://example.com/a b.png")
        XCTAssertEqual(url.options.transform.resizingType, .fill)
        XCTAssertEqual(url.options.transform.width, 300)
        XCTAssertEqual(url.options.transform.height, 200)
        XCTAssertEqual(url.options.transform.quality, 70)
        XCTAssertEqual(url.options.transform.format, .webp)
        XCTAssertEqual(url.sourceHost, "example.com")
    }

    func testEncodedSourceMaySplitAcrossSegments() throws {
        let url = try DWProxyURL(target: "/sig/w:100/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
        XCTAssertEqual(url.source, "http://example.com/images/curiosity.jpg")
        XCTAssertEqual(url.options.transform.format, .png)
        XCTAssertEqual(url.options.transform.width, 100)
    }

    func testMalformedTargetsAreParseErrors() {
        for target in [
            "", "nope", "/onlysignature", "/s/plain/ftp://example.com/a.png", "/s/plain/", "/s/%%%",
            "/s/rs:sideways:1:1/plain/http://a/b", "/s/q:101/plain/http://a/b", "/s/aGVsbG8.exe",
            "/s/aHR0cDovL2EvYg?x=1", "/s/plain/http:///nohost"
        ] {
            XCTAssertThrowsError(try DWProxyURL(target: target), target) { error in
                XCTAssertTrue(error is DWProxyURL.ParseError, target)
            }
        }
    }

    func testAtSignInUserinfoIsNotAnExtension() throws {
        let url = try DWProxyURL(target: "/s/plain/http://user@example.com/a.png")
        XCTAssertNil(url.options.transform.format)
        XCTAssertEqual(url.source, "http://user@example.com/a.png")
    }
}

final class SignerTests: XCTestCase {
    // Key, salt and path of imgproxy's documentation; the signature computed by Python's hmac module.
    let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
    let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
    let expected = "90UxdwGRAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf40"

    func testSignatureMatchesAnIndependentHMAC() throws {
        let signer = try XCTUnwrap(DWURLSigner(keyHex: key, saltHex: salt))
        XCTAssertEqual(signer.signature(for: path), expected)
        XCTAssertTrue(signer.isValid(signature: expected, for: path))
    }

    func testWrongSignaturesAreInvalid() throws {
        let signer = try XCTUnwrap(DWURLSigner(keyHex: key, saltHex: salt))
        XCTAssertFalse(signer.isValid(signature: "90UxdwGRAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf4A", for: path))
        XCTAssertFalse(signer.isValid(signature: expected, for: path + "x"))
        XCTAssertFalse(signer.isValid(signature: "insecure", for: path))
        XCTAssertFalse(signer.isValid(signature: "", for: path))
        XCTAssertFalse(signer.isValid(signature: "!!!", for: path))
    }

    func testKeyAndSaltMustBeHex() {
        XCTAssertNil(DWURLSigner(keyHex: "", saltHex: "00"))
        XCTAssertNil(DWURLSigner(keyHex: "abc", saltHex: "00"))
        XCTAssertNil(DWURLSigner(keyHex: "zz", saltHex: "00"))
        XCTAssertNotNil(DWURLSigner(keyHex: "AbCd", saltHex: ""))
    }
}

final class CIDRAndAddressPolicyTests: XCTestCase {
    func testCIDRParsingAndContainment() throws {
        let v4 = try XCTUnwrap(DWCIDR("10.1.0.0/16"))
        XCTAssertTrue(v4.contains([10, 1, 200, 3]))
        XCTAssertFalse(v4.contains([10, 2, 0, 1]))
        XCTAssertFalse(v4.contains(Array(repeating: 0, count: 16)), "an IPv4 network holds no IPv6 address")
        let v6 = try XCTUnwrap(DWCIDR("fd00::/8"))
        XCTAssertTrue(v6.contains([0xfd, 0x12] + Array(repeating: 0, count: 14)))
        XCTAssertEqual(DWCIDR("10.0.0.7")?.prefixLength, 32, "a bare address is that one host")
        for bad in ["", "10.0.0.0/33", "fd00::/129", "10.0.0/8", "x/8", "10.0.0.0/-1"] {
            XCTAssertNil(DWCIDR(bad), bad)
        }
    }

    func testForbiddenAddressesUnlessAllowed() throws {
        let policy = DWAddressPolicy()
        let loopback6 = Array(repeating: UInt8(0), count: 15) + [1]
        let mapped = Array(repeating: UInt8(0), count: 10) + [0xff, 0xff, 93, 184, 216, 34]
        for address in [
            [127, 0, 0, 1], [10, 0, 0, 1], [192, 168, 1, 1], [169, 254, 169, 254], [100, 64, 0, 1],
            [0, 0, 0, 0], [224, 0, 0, 1], loopback6, mapped
        ] as [[UInt8]] {
            XCTAssertFalse(policy.allows(address), "\(address)")
        }
        XCTAssertTrue(policy.allows([93, 184, 216, 34]))
        let allowing = DWAddressPolicy(allowedNetworks: [try XCTUnwrap(DWCIDR("127.0.0.1/32"))])
        XCTAssertTrue(allowing.allows([127, 0, 0, 1]))
        XCTAssertFalse(allowing.allows([127, 0, 0, 2]))
    }
}

final class NegotiationAndStatusTests: XCTestCase {
    /// imgproxy's order (JPEG XL, AVIF, WebP), only what the client accepts (q=0 refuses) and the server lets it
    /// pick; enforced formats are preferred too; `Vary` whenever `Accept` can change the answer.
    func testAcceptBuckets() {
        var auto = DWAcceptFormats()
        auto.auto = [.webp, .avif]
        XCTAssertEqual(auto.bucket(accept: "image/avif,image/webp").preferred, [.avif, .webp])
        XCTAssertEqual(auto.bucket(accept: "image/webp, image/avif;q=0.5, */*").preferred, [.avif, .webp])
        XCTAssertEqual(auto.bucket(accept: "image/jxl,image/webp;q=0").preferred, [])
        XCTAssertEqual(auto.bucket(accept: nil), DWAcceptBucket())
        XCTAssertEqual(DWAcceptFormats().bucket(accept: "image/webp"), DWAcceptBucket())
        XCTAssertTrue(auto.varies(explicit: nil))
        XCTAssertFalse(auto.varies(explicit: .png), "auto never overrides a URL's format")
        var enforce = DWAcceptFormats()
        (enforce.auto, enforce.enforce) = ([.jxl], [.webp, .avif])
        let bucket = enforce.bucket(accept: "image/webp,image/avif,image/jxl")
        XCTAssertEqual(bucket.preferred, [.jxl, .avif, .webp])
        XCTAssertEqual(bucket.enforced, [.avif, .webp])
        XCTAssertTrue(enforce.varies(explicit: .png))
    }

    func testPipelineErrorsMapToTheDocumentedTable() {
        func status(_ error: DWWebImageError) -> Int { DWStatusMapping.status(for: error).0.code }
        XCTAssertEqual(status(DWWebImageError(.invalidURL, "x")), 400)
        XCTAssertEqual(status(DWWebImageError(.notAnImage, "x")), 422)
        XCTAssertEqual(status(DWWebImageError(.tooLarge, "x")), 422)
        XCTAssertEqual(status(DWWebImageError(.httpStatus, "x", httpStatus: 404)), 404)
        XCTAssertEqual(status(DWWebImageError(.httpStatus, "x", httpStatus: 410)), 404)
        XCTAssertEqual(status(DWWebImageError(.httpStatus, "x", httpStatus: 403)), 502)
        XCTAssertEqual(status(DWWebImageError(.httpStatus, "x", httpStatus: 500)), 502)
        XCTAssertEqual(status(DWWebImageError(.transport, "x", curlCode: 7)), 502)
        XCTAssertEqual(status(DWWebImageError(.transport, "x", curlCode: 28)), 504)
        XCTAssertEqual(status(DWWebImageError(.cacheIO, "x")), 502)
    }

    func testErrorBodiesAreOneLineWithTheStatusesOwnReasonPhrase() {
        XCTAssertEqual(
            DWResponses.errorLine(.unprocessableContent, "bad\r\nthing"), "422 Unprocessable Content: bad  thing\n")
        XCTAssertEqual(DWResponses.errorLine(.gatewayTimeout, "slow"), "504 Gateway Timeout: slow\n")
        let response = DWResponses.error(.forbidden, "no")
        XCTAssertEqual(response.status, .forbidden)
        XCTAssertEqual(response.headers[.contentLength], "18")  // "403 Forbidden: no\n"
        XCTAssertEqual(response.headers[.cacheControl], "no-store")
        XCTAssertEqual(response.headers[HTTPField.Name("X-Content-Type-Options")!], "nosniff")
    }

    func testAnImageAnswerHasEachOfItsFieldsOnceWhateverTheExtraFieldsName() {
        let body = DWServedBytes.Body(buffer: ByteBuffer(string: "img"), etag: "\"e\"")
        let nosniff = HTTPField.Name("X-Content-Type-Options")!
        func names(_ response: Response) -> [String] { response.headers.map(\.name.canonicalName) }
        let plain = DWResponses.image(body, contentType: "image/png", maxAge: 60, varies: true, ifNoneMatch: [])
        XCTAssertEqual(
            names(plain),
            [
                "etag", "cache-control", "vary", "x-content-type-options", "content-security-policy", "content-type",
                "content-length"
            ])
        // An embedder's fallback header may be named like one serve sets: replaced, never sent twice.
        let marked = DWResponses.image(
            body, contentType: "image/png", maxAge: 60, varies: false, ifNoneMatch: [],
            extra: [.cacheControl: "1", nosniff: "1", .contentType: "1", HTTPField.Name("X-Fallback")!: "1"])
        XCTAssertEqual(Set(names(marked)).count, names(marked).count, "\(names(marked))")
        XCTAssertEqual(marked.headers[.cacheControl], "public, max-age=60")
        XCTAssertEqual(marked.headers[nosniff], "nosniff")
        XCTAssertEqual(marked.headers[.contentType], "image/png")
        XCTAssertEqual(marked.headers[HTTPField.Name("X-Fallback")!], "1")
        let keyed = DWResponses.image(
            body, contentType: "image/png", maxAge: 60, varies: false, ifNoneMatch: ["\"e\""],
            extra: [HTTPField.Name("Surrogate-Key")!: "k"], extraNamesAreOthers: true)
        XCTAssertEqual(keyed.status, .notModified)
        XCTAssertEqual(
            names(keyed).filter { $0 != "content-length" },  // Hummingbird's; a 304 goes out without it
            ["surrogate-key", "etag", "cache-control", "x-content-type-options", "content-security-policy"])
    }

    func testETagsAndIfNoneMatch() {
        let etag = DWETag.of(Data("abc".utf8))
        XCTAssertEqual(etag.count, 34)
        XCTAssertEqual(etag, "\"ba7816bf8f01cfea414140de5dae2223\"", "128 bits of SHA-256(\"abc\"), lowercase hex")
        XCTAssertTrue(DWETag.matches(ifNoneMatch: ["\"x\", W/\(etag)"], etag: etag))
        XCTAssertTrue(DWETag.matches(ifNoneMatch: ["*"], etag: etag))
        XCTAssertFalse(DWETag.matches(ifNoneMatch: ["\"x\""], etag: etag))
    }
}

/// /info's placeholders: ThumbHash, a data-URI LQIP under 4 KiB, and the aspect ratio (always).
final class InfoPlaceholderTests: XCTestCase {
    func testThumbHashLQIPAndAspectRatio() throws {
        let image = try DWImage(data: SampleImages.png(width: 90, height: 60))
        var options = DWInfoOptions()
        try options.apply("th:1")
        try options.apply("lqip:16")
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: DWImageServer.infoJSON(image, options)) as? [String: Any])
        XCTAssertEqual(object["thumbhash"] as? String, try image.thumbHash().base64EncodedString())
        let lqip = try XCTUnwrap(object["lqip"] as? String)
        XCTAssertTrue(lqip.hasPrefix("data:image/webp;base64,"), lqip)
        XCTAssertLessThanOrEqual(lqip.utf8.count, 4096)
        let placeholder = try DWImage(data: try XCTUnwrap(Data(base64Encoded: String(lqip.dropFirst(23)))))
        XCTAssertEqual([placeholder.pixelWidth, placeholder.pixelHeight], [16, 11])
        XCTAssertEqual(object["aspect_ratio"] as? Double, 1.5)
        XCTAssertThrowsError(try options.apply("lqip:2"), "too small to be a placeholder")
        XCTAssertNotEqual(options.identifier, DWInfoOptions().identifier, "each its own cached answer")
    }
}
