// The copy-on-write values of the transfer path: DWResponseHead and TransferRequest keep their fields in a shared
// box, and must still behave as values — a copy written to leaves the original as it was.
import DWLocking
import Foundation
import XCTest

@testable import DWWebImage

final class ValueBoxTests: XCTestCase {
    func testAResponseHeadCopyWrittenToLeavesTheOriginal() {
        var original = DWResponseHead()
        original.status = 200
        original.add(headerLine: "ETag: \"abc\"\r\n")
        original.add(headerLine: "Cache-Control: max-age=60\r\n")
        original.add(headerLine: "Cache-Control: public\r\n")
        var copy = original
        XCTAssertEqual(copy, original)
        copy.status = 206
        copy.etag = "W/\"changed\""
        copy.add(headerLine: "Content-Length: 12\r\n")
        XCTAssertEqual(original.status, 200)
        XCTAssertEqual(original.etag, "\"abc\"")
        XCTAssertNil(original.contentLength)
        XCTAssertEqual(original.cacheControl, "max-age=60, public")
        XCTAssertEqual(copy.status, 206)
        XCTAssertEqual(copy.etag, "W/\"changed\"")
        XCTAssertEqual(copy.contentLength, 12)
        XCTAssertEqual(copy.cacheControl, "max-age=60, public")
        XCTAssertNotEqual(copy, original)
    }

    func testResponseHeadsWithEqualFieldsAreEqualWhateverTheirHistory() {
        var a = DWResponseHead()
        a.status = 304
        a.lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
        var b = DWResponseHead()
        b.lastModified = "x"
        b.status = 304
        XCTAssertNotEqual(a, b)
        b.lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
        XCTAssertEqual(a, b)
        b.location = "/elsewhere"
        XCTAssertNotEqual(a, b, "every field counts, the internal ones too")
    }

    func testATransferRequestCopyWrittenToLeavesTheOriginal() {
        var original = TransferRequest(url: "http://127.0.0.1/a.png")
        original.headers = ["X-One: 1"]
        original.maxBodySize = 1024
        var copy = original
        copy.headers += ["Range: bytes=10-"]
        copy.acceptEncoding = "identity"
        copy.url = "http://127.0.0.1/b.png"
        copy.maxBodySize = nil
        XCTAssertEqual(original.url, "http://127.0.0.1/a.png")
        XCTAssertEqual(original.headers, ["X-One: 1"])
        XCTAssertEqual(original.acceptEncoding, "")
        XCTAssertEqual(original.maxBodySize, 1024)
        XCTAssertEqual(copy.url, "http://127.0.0.1/b.png")
        XCTAssertEqual(copy.headers, ["X-One: 1", "Range: bytes=10-"])
        XCTAssertEqual(copy.acceptEncoding, "identity")
        XCTAssertNil(copy.maxBodySize)
    }

    func testATransferRequestTakesItsDefaultsFromTheConfiguration() {
        let defaults = DWWebImageManager.Configuration()
        let plain = TransferRequest(url: "http://127.0.0.1/a.png")
        XCTAssertEqual(plain.userAgent, defaults.userAgent, "one User-Agent default, the configuration's")
        XCTAssertEqual(plain.maxBodySize, defaults.maxBodySize)
        XCTAssertEqual(plain.timeout, defaults.timeout)
        XCTAssertEqual(plain.maxRedirects, defaults.maxRedirects)
        var configuration = defaults
        (configuration.timeout, configuration.userAgent, configuration.proxy) = (3, "UA/1", "http://127.0.0.1:9")
        let request = TransferRequest(url: "http://127.0.0.1/a.png", configuration: configuration)
        XCTAssertEqual(request.timeout, 3)
        XCTAssertEqual(request.userAgent, "UA/1")
        XCTAssertEqual(request.proxy, "http://127.0.0.1:9")
        XCTAssertEqual(request.noProxy, "", "an explicit proxy without exceptions ignores no_proxy")
    }

    func testACopyOfARequestOnAnotherThreadSeesTheFieldsItWasMadeWith() {
        var request = TransferRequest(url: "http://127.0.0.1/shared.png")
        request.headers = (0..<8).map { "X-\($0): \($0)" }
        let group = DispatchGroup()
        let failures = DWLock(0)
        for i in 0..<8 {
            let mine = request
            DispatchQueue.global().async(group: group) {
                var local = mine
                for j in 0..<2_000 { local.headers.append("X-\(i)-\(j): v") }
                if mine.headers.count != 8 || local.headers.count != 2_008 { failures.withLock { $0 += 1 } }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(failures.withLock { $0 }, 0)
        XCTAssertEqual(request.headers.count, 8)
    }
}
