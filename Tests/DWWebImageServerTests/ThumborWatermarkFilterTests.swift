// thumbor's watermark() arguments read as thumbor's regexes read them, and the allow-list checked at parse time.
import DWImageTransform
import XCTest

@testable import DWWebImageServer

final class ThumborWatermarkFilterTests: XCTestCase {
    /// Every position form, alpha, ratios (`none` and 0 mean no ratio), the URL percent-decoded and given a scheme.
    func testArguments() throws {
        let filters = try DWThumborFilter.list(
            "watermark(a.com/w.png,-10,20p,30):watermark(http%3A%2F%2Fa.com%2Fw.png,center,repeat,0,25,none)"
                + ":watermark('b.com/w.png',-0,-5p,250,0,40)")
        XCTAssertEqual(
            filters,
            [
                .watermark(
                    DWThumborWatermark(
                        url: "http://a.com/w.png", x: .pixels(10, fromEnd: true),
                        y: .percent(20, fromEnd: false), alpha: 30)),
                .watermark(
                    DWThumborWatermark(url: "http://a.com/w.png", x: .center, y: .tiled, alpha: 0, widthRatio: 25)),
                .watermark(
                    DWThumborWatermark(
                        url: "http://b.com/w.png", x: .pixels(0, fromEnd: true),
                        y: .percent(5, fromEnd: true), alpha: 100, heightRatio: 40))
            ])
    }

    /// A bad position, alpha or ratio, a wrong count of arguments, and `frame` are 400s naming the filter.
    func testBadArgumentsAndFrameAreRefused() {
        for text in [
            "watermark(a.com/w.png,left,0,0)", "watermark(a.com/w.png,0,0,-1)", "watermark(a.com/w.png,0,0,0,-5)",
            "watermark(a.com/w.png,0,0)", "watermark(a.com/w.png,0,0,0,1,1,1)", "watermark(,0,0,0)",
            "watermark(a.com/w.png,1.5,0,0)", "frame(a.com/f.png)"
        ] {
            XCTAssertThrowsError(try DWThumborFilter.list(text), text) { error in
                let name = text.hasPrefix("frame") ? "frame" : "watermark"
                XCTAssertTrue("\(error)".contains(name), "\(text): \(error)")
            }
        }
    }

    /// The host must be listed (exactly, or under a `*.` pattern); none listed refuses every watermark.
    func testAllowList() throws {
        var settings = DWThumborSettings()
        settings.allowUnsafe = true
        let target = "/unsafe/10x10/filters:watermark(marks.example.com/w.png,0,0,0)/a.com/b.jpg"
        XCTAssertThrowsError(try DWThumborURL(target: target, settings: settings))
        settings.watermarkHosts = ["*.example.com"]
        let parsed = try DWThumborURL(target: target, settings: settings)
        XCTAssertEqual(parsed.request.watermark, "http://marks.example.com/w.png")
        settings.watermarkHosts = ["other.example.org"]
        XCTAssertThrowsError(try DWThumborURL(target: target, settings: settings)) { error in
            XCTAssertTrue("\(error)".contains("'marks.example.com'"), "\(error)")
        }
    }
}
