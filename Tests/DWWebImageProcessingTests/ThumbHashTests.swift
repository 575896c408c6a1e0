// ThumbHash against evanw/thumbhash's JavaScript reference: the expected bytes below are what its rgbaToThumbHash
// returned (node 20, js/thumbhash.js at a652ce6) for these fixtures' RGBA as Pillow decodes them.
import DWTestServer
import DWWebImage
import DWWebImageProcessing
import XCTest

final class ThumbHashTests: XCTestCase {
    /// An opaque gradient, a portrait image with alpha, and a 100 × 60 noisy one (the largest size hashed as it is).
    /// Each has a little noise: a coefficient that is exactly zero in exact arithmetic lands on a rounding boundary
    /// (15 × 0.5), where the last bit of `cos` — V8's or glibc's — decides, and no two implementations need agree.
    func testTheReferencesExactBytes() throws {
        let expected = [
            "thumbhash-gradient.png": "ovcJRZqhOneAd4d3d3h3dzBxB/iH",
            "thumbhash-alpha.png": "XnyCCwQniICIt4eIgHj3d1d4h4iAiHc=",
            "thumbhash-noise.png": "3FcOLJSAeId0h3d4d4d/gQfneA=="
        ]
        for (name, hash) in expected {
            XCTAssertEqual(try Fixtures.image(name).thumbHash().base64EncodedString(), hash, name)
        }
    }

    /// A larger image is averaged down to 100 × 100 first: its hash is the one of that average, and it keeps the
    /// aspect ratio's orientation bit.
    func testALargerImageIsHashedFromItsAverage() throws {
        let big = try DWImage(data: SampleImages.png(width: 400, height: 200))
        let hash = try big.thumbHash()
        XCTAssertGreaterThan(hash.count, 5)
        XCTAssertEqual(hash[4] >> 7, 1, "landscape")
    }
}
