// FITS through the built `dwfetch serve`: refused (422) before its decoder unless `--source-formats` names it, as
// PNM and JPEG 2000 are (libvips counts fitsload as untrusted; imgproxy does not read FITS), and then read, resized
// and written as PNG.
import DWTestServer
import Foundation
import XCTest

final class FITSServeTests: ServeTestCase {
    /// A 16×12 FITS file, BITPIX 8, a horizontal gradient.
    static let fits: Data = {
        let cards = [("SIMPLE", "T"), ("BITPIX", "8"), ("NAXIS", "2"), ("NAXIS1", "16"), ("NAXIS2", "12")]
        var header = ""
        for (key, value) in cards {
            let card =
                key.padding(toLength: 8, withPad: " ", startingAt: 0) + "= "
                + String(repeating: " ", count: 20 - value.count) + value
            header += card.padding(toLength: 80, withPad: " ", startingAt: 0)
        }
        header += "END".padding(toLength: 80, withPad: " ", startingAt: 0)
        header = header.padding(toLength: 2880, withPad: " ", startingAt: 0)
        let pixels = (0..<16 * 12).map { (i: Int) -> UInt8 in UInt8(i % 16 * 16) }
        return Data(header.utf8) + Data(pixels) + Data(count: 2880 - pixels.count)
    }()

    func testFITSIsReadOnlyWhenSourceFormatsNamesIt() throws {
        origin.setRoute("/a.fits", .ok(Self.fits, contentType: "image/fits"))
        let path = "/insecure/w:8/f:png/plain/\(origin.url("/a.fits"))"
        let defaults = try serve()
        XCTAssertEqual(try defaults.get(path).status, 422, "not a default source format")
        XCTAssertEqual(try defaults.get("/info/insecure/plain/\(origin.url("/a.fits"))").status, 422)
        let named = try serve(["--source-formats", "png,fits"])
        let response = try named.get(path)
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.body.prefix(4), Data([0x89, 0x50, 0x4E, 0x47]))
        let plain = try named.get("/insecure/plain/\(origin.url("/a.fits"))")
        XCTAssertEqual(plain.status, 200, plain.text)
        XCTAssertNotEqual(plain.header("Content-Type"), "image/fits", "FITS is not written")
    }
}
