// The error kinds the processing module builds: each factory's code, text and sizes, as users and tests read them.
import DWWebImage
import XCTest

@testable import DWWebImageProcessing

final class ErrorKindsTests: XCTestCase {
    func testEveryKindKeepsItsCodeTextAndSizes() {
        let kinds: [(DWWebImageError, DWWebImageError.Code, String, Int64?, Int64?)] = [
            (.malformed("BMP", "truncated header"), .notAnImage, "BMP: truncated header", nil, nil),
            (.failed("cannot trim", reason: ""), .notAnImage, "cannot trim", nil, nil),
            (.failed("cannot encode jpeg", reason: "bad"), .notAnImage, "cannot encode jpeg: bad", nil, nil),
            (.noFrames("GIF"), .notAnImage, "GIF has no frames", nil, nil),
            (.corruptFrame(2, format: "png"), .notAnImage, "png frame 2 is corrupt", nil, nil),
            (.apngFrame(1, decodedTo: "8 bytes"), .notAnImage, "APNG frame 1 decoded to 8 bytes", nil, nil),
            (.brokenSVG("eof"), .notAnImage, "broken or unsupported SVG image: eof", nil, nil),
            (
                .svgRefused("an <!ATTLIST> declaration"), .notAnImage,
                "SVG refused before rendering: an <!ATTLIST> declaration", nil, nil
            ),
            (
                .svgOverCap("elements", 9, 8), .tooLarge, "SVG refused before rendering: elements over the cap of 8", 9,
                8
            ),
            (
                .overLibvipsSide("SVG size", 5, 70000, maxSide: 65535), .tooLarge,
                "SVG size 5×70000 is over libvips' limit of 65535 per side", 70000, 65535
            ),
            (.svgStopped(after: "3 s"), .tooLarge, "SVG rendering was stopped after 3 s", nil, nil),
            (
                .stopped("the encode helper", after: "300.0 s"), .tooLarge,
                "the encode helper was stopped after 300.0 s", nil, nil
            ),
            (.cannotRenderSVG("socketpair: x"), .notAnImage, "cannot render SVG: socketpair: x", nil, nil),
            (
                .overLimit("FITS image of 2×2×3 samples", limit: 10, unit: " pixels", size: 12), .tooLarge,
                "FITS image of 2×2×3 samples is over the limit of 10 pixels", 12, 10
            ),
            (.tooLarge(nil, size: 5, limit: 4, what: "frames"), .tooLarge, "frames of 5 is over the limit of 4", 5, 4)
        ]
        for (error, code, message, size, limit) in kinds {
            XCTAssertEqual(error.code, code, message)
            XCTAssertEqual(error.message, message)
            XCTAssertEqual(error.size, size, message)
            XCTAssertEqual(error.limit, limit, message)
            XCTAssertNil(error.url, message)
        }
    }
}
