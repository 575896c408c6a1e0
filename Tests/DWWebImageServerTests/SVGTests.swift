// SVG sources in the library and the engine: the sniffer's facts, rasters against librsvg's own rsvg-convert at the
// same size (the vector scaled, not a raster resized), the limits, references that must never be followed, and the
// sanitiser.
import DWTestPeers
import DWTestServer
import DWWebImage
import DWWebImageProcessing
@testable import DWWebImageServer
import XCTest

final class SVGTests: XCTestCase {
    func testTheSnifferRecognisesSVGAsImgproxyDoesWithLibrsvgsIntrinsicSize() throws {
        let ns = "xmlns=\"http://www.w3.org/2000/svg\""
        let cases: [(String, Int, Int)] = [
            ("<svg \(ns) width=\"100\" height=\"50\"/>", 100, 50),
            (
                "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- made by hand -->\n<svg \(ns) width=\"100.6px\" height=\"50.4\"/>",
                101, 50
            ),
            (
                "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\" "
                    + "[<!ENTITY a \"x > y\"> <!-- ] > -->]>\n<svg \(ns) viewBox=\"0 0 50 30\"/>", 50, 30
            ),
            ("<svg:svg xmlns:svg=\"http://www.w3.org/2000/svg\" width=\"1in\" height=\"2cm\"></svg:svg>", 72, 57),
            ("<SVG \(ns) width=\"10em\" height=\"4ex\"/>", 120, 24),
            ("<svg \(ns) width=\"100%\" viewBox=\"0,0,50,30\"/>", 50, 30),
            ("<svg \(ns) width=\"120\" viewBox=\"0 0 50 30\"/>", 120, 72),
            ("<svg \(ns)><rect width=\"10\" height=\"10\"/></svg>", 0, 0),  // no size: the engine gives it 300 × 150
            ("<svg \(ns) width=\"1e9\" height=\"1e9\"/>", 1_000_000_000, 1_000_000_000)
        ]
        for (text, width, height) in cases {
            let image = try DWImage(data: Data(text.utf8))
            XCTAssertEqual(image.format, .svg, text)
            XCTAssertEqual([image.pixelWidth, image.pixelHeight, image.frameCount], [width, height, 1], text)
        }
        for text in [
            "<html><body><svg \(ns)/></body></html>", "hello <svg \(ns)/>", "<svgx/>", "<!-- <svg> -->",
            String(repeating: " ", count: 40_000) + "<svg \(ns)/>"
        ] {
            XCTAssertThrowsError(try DWImage(data: Data(text.utf8)), text) {
                XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage)
            }
        }
        let unsized = try DWImage(data: Data("<svg \(ns)><rect x=\"2\" width=\"10\" height=\"8\"/></svg>".utf8))
        XCTAssertEqual(
            [try unsized.reportedSize.width, try unsized.reportedSize.height], [300, 150],
            "no declared size: CSS's default object size, from the document (never from a render)")
        let svgz = Data([0x1F, 0x8B, 0x08, 0x00]) + Data("<svg \(ns)/>".utf8)  // gzip's magic: not SVG (imgproxy)
        XCTAssertThrowsError(try DWImage(data: svgz))
        XCTAssertEqual([DWImageFormat.svg.mimeType, DWImageFormat.svg.fileExtension], ["image/svg+xml", "svg"])
        XCTAssertEqual(DWImageFormat(name: "SVG"), .svg)
        XCTAssertFalse(DWImageFormat.svg.isWritable)
        XCTAssertNil(DWImageFormat(conversionTargetNamed: "svg"))
    }

    func testRastersAreLibrsvgsOwnAtTheSizeAskedFor() throws {
        let source = try DWImage(data: Data(SVGFixtures.drawing.utf8))
        // (options, width, height): a vector is scaled to the box without el:1, as imgproxy does
        let cases: [(String, Int, Int)] = [
            ("f:png", 100, 50), ("rs:fit:400:400", 400, 200), ("w:30", 30, 15), ("h:150/f:webp", 300, 150),
            ("dpr:2/w:50", 100, 50), ("rs:force:80:80", 80, 80), ("rs:fill:60:60", 60, 60),
            ("rs:fit:4000:100/el:1", 200, 100)
        ]
        for (options, width, height) in cases {
            let (image, bitmap) = try Imgproxy.run(options, on: source.data)
            XCTAssertEqual([bitmap.width, bitmap.height], [width, height], options)
            XCTAssertEqual(image.format, options.contains("webp") ? .webp : .png, options)
            // fill crops, force scales the sides apart (imgproxy renders at one scale and resizes the rest), WebP is lossy
            guard !options.contains("fill"), !options.contains("force"), !options.contains("webp") else { continue }
            let reference = try rsvgConvert(SVGFixtures.drawing, width: width, height: height)
            let difference = try meanAndMaxDifference(bitmap, reference)
            XCTAssertLessThanOrEqual(difference.mean, 0.5, "\(options): mean difference from rsvg-convert")
            XCTAssertLessThanOrEqual(difference.max, 24, "\(options): largest difference from rsvg-convert")
        }
        // the library's processors (dwfetch's --resize and --format) take the same path
        let resized = try DWImageProcessors.apply(
            [DWResize(width: 300, height: nil), DWConvert(format: .png)], to: source)
        XCTAssertEqual(
            [resized.format, resized.pixelWidth, resized.pixelHeight] as [AnyHashable], [DWImageFormat.png, 300, 150])
        let reference = try rsvgConvert(SVGFixtures.drawing, width: 300, height: 150)
        XCTAssertLessThanOrEqual(try meanAndMaxDifference(resized.bitmap(), reference).max, 24)
        let grey = try DWGrayscale().process(source)  // any processor: rendered at the intrinsic size
        XCTAssertEqual([grey.format, grey.pixelWidth, grey.pixelHeight] as [AnyHashable], [DWImageFormat.png, 100, 50])
        XCTAssertNoThrow(try source.verifyDecodes())
    }

    func testCropAndGravityOffsetsAreInTheSVGsOwnUnits() throws {
        // c:40:40:nowe:5:5 is the red square (5…45); fitted into 200 × 200 it is rendered at 5×, every pixel red
        let (_, bitmap) = try Imgproxy.run("c:40:40:nowe:5:5/rs:fit:200:200", on: Data(SVGFixtures.drawing.utf8))
        XCTAssertEqual([bitmap.width, bitmap.height], [200, 200])
        for (x, y) in [(2, 2), (100, 100), (197, 197)] {
            XCTAssertTrue(bitmap.isColour(x, y, 255, 0, 0), "(\(x), \(y)): \(bitmap.rgba(x, y))")
        }
        let turned = try Imgproxy.run("rot:90/w:50", on: Data(SVGFixtures.drawing.utf8)).1
        XCTAssertEqual([turned.width, turned.height], [50, 100])
        XCTAssertTrue(turned.isColour(25, 15, 255, 0, 0), "90° clockwise: the square on top: \(turned.rgba(25, 15))")
        XCTAssertTrue(turned.isColour(25, 75, 0, 0, 255), "and the circle below: \(turned.rgba(25, 75))")
    }

    func testAHugeSVGIsRefusedByThePixelLimitsBeforeAnythingIsDrawn() throws {
        let before = residentBytes()
        let huge = try DWImage(data: Data(SVGFixtures.sized("1e9", "1e9").utf8))
        XCTAssertThrowsError(try huge.bitmap()) { XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge) }
        for options in ["f:png", "w:100", "el:1/f:png"] {
            XCTAssertThrowsError(try Imgproxy.run(options, on: huge.data), options) {
                XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge, "\(options): \($0)")
            }
        }
        // Under libvips' bound but over the pixel limit: refused at the size it would render at (el:1), or scaled
        // down to the limit without el:1 (imgproxy's rule for vectors).
        var limits = DWProcessingLimits()
        limits.maxPixelCount = 1_000_000
        let large = try DWImage(data: Data(SVGFixtures.sized("20000", "10000").utf8))
        let enlarge = try XCTUnwrap(try Imgproxy.parse("el:1/f:png").transform.processors().first)
        XCTAssertThrowsError(try DWImageProcessing.process(large, with: enlarge, limits: limits)) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge)
        }
        for options in ["f:png", "bl:1/f:png"] {  // a conversion alone, and imgproxy's pipeline
            let fitted = try XCTUnwrap(try Imgproxy.parse(options).transform.processors().first)
            let scaled = try DWImageProcessing.process(large, with: fitted, limits: limits)
            XCTAssertLessThanOrEqual(scaled.pixelWidth * scaled.pixelHeight, 1_000_000, options)
            XCTAssertEqual(scaled.pixelWidth, 2 * scaled.pixelHeight, options)
        }
        XCTAssertLessThan(residentBytes() - before, 200 << 20, "no raster of the declared size was allocated")
    }

    func testReferencesToFilesAndURLsAreNeverFollowed() throws {
        let origin = try LoopbackHTTPServer()
        defer { origin.shutdown() }
        origin.setRoute("/red.png", .ok(SampleImages.png(width: 100, height: 50) { _, _ in (255, 0, 0, 255) }))
        origin.setRoute("/shape.svg", .ok(Data(SVGFixtures.drawing.utf8), contentType: "image/svg+xml"))
        let control = try Imgproxy.run("f:png", on: Data(SVGFixtures.references(nil).utf8)).1
        for href in [
            origin.url("/red.png"), "file:///etc/passwd", "/etc/passwd", "file:///proc/self/environ",
            origin.url("/shape.svg")
        ] {
            let svg = SVGFixtures.references(href)
            do {
                let bitmap = try Imgproxy.run("f:png", on: Data(svg.utf8)).1
                XCTAssertEqual(try meanAndMaxDifference(bitmap, control).max, 0, "\(href) changed the raster")
            } catch let error as DWWebImageError {
                XCTAssertEqual(error.code, .notAnImage, "\(href): \(error)")
                XCTAssertFalse(error.message.contains("root:"), "no file bytes in the error")
            }
        }
        let xxe = """
            <?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>
            <svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><text y="20">&x;</text></svg>
            """
        XCTAssertThrowsError(try Imgproxy.run("f:png", on: Data(xxe.utf8))) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage)  // librsvg: the external entity is not defined
        }
        XCTAssertEqual(origin.requestLog.count, 0, "the SVG made requests: \(origin.requestedPaths)")
    }

    func testTheSanitiserStripsWhatImgproxysStripsAndRendersTheSame() throws {
        let dirty = SVGFixtures.dirty(dataImage: SVGFixtures.redDataURL)
        let clean = String(decoding: try DWSVGSanitizer.sanitize(Data(dirty.utf8)), as: UTF8.self)
        for gone in [
            "<script", "alert", "onload", "onclick", "OnMouseOver", "javascript", "<iframe", "<form",
            "http://127.0.0.1:9/ext.svg", "<set", "xml-stylesheet", "ATTLIST", "evil", "&#106;"
        ] {
            XCTAssertFalse(clean.contains(gone), "\(gone) left in:\n\(clean)")
        }
        for kept in [
            "<?xml version=\"1.0\"?>", "<!-- keep me -->", "<!ENTITY plain \"text\">", "href=\"#dot\"",
            "href=\"https://example.com/\"", SVGFixtures.redDataURL, "<![CDATA[ .a { fill: #0000ff } ]]>",
            "<rect id=\"r\" x=\"5\" y=\"5\" width=\"40\" height=\"40\" fill=\"#ff0000\"/>"
        ] {
            XCTAssertTrue(clean.contains(kept), "\(kept) missing from:\n\(clean)")
        }
        // The original reaches outside itself (an xml-stylesheet, an ATTLIST, an external <use>): never rendered.
        XCTAssertThrowsError(try Imgproxy.run("f:png", on: Data(dirty.utf8))) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage)
        }
        let sanitised = try Imgproxy.run("f:png", on: Data(clean.utf8)).1
        XCTAssertTrue(
            sanitised.isColour(20, 20, 255, 0, 0) && sanitised.isColour(75, 25, 0, 0, 255),
            "the sanitised drawing renders: \(sanitised.rgba(20, 20)) \(sanitised.rgba(75, 25))")
        let untouched = Data(SVGFixtures.drawing.utf8)
        XCTAssertEqual(try DWSVGSanitizer.sanitize(untouched), untouched, "a clean document is copied byte for byte")
        for broken in ["<svg><rect width='1' </svg>", "<svg><!-- open", "<svg x=1></svg>", "<svg><script>x</svg"] {
            XCTAssertThrowsError(try DWSVGSanitizer.sanitize(Data(broken.utf8)), broken) {
                XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage)
            }
        }
    }

    /// The review's SVG-as-SVG probe: a root in the XHTML namespace is read by browsers as HTML, where `<meta
    /// refresh>` and `<object data="javascript:…">` act; such a root is refused, and the HTML elements that load,
    /// embed or navigate are dropped from any document (the CSP `sandbox` header is then not the only guard).
    func testTheSanitiserRefusesAnHTMLRootAndDropsHTMLLoaders() throws {
        let xhtml = """
            <svg xmlns="http://www.w3.org/1999/xhtml"><meta http-equiv="refresh" content="0;url=https://evil/"/></svg>
            """
        XCTAssertThrowsError(try DWSVGSanitizer.sanitize(Data(xhtml.utf8))) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage)
        }
        let prefixed = #"<h:svg xmlns:h="http://www.w3.org/1999/xhtml"><h:rect/></h:svg>"#
        XCTAssertThrowsError(try DWSVGSanitizer.sanitize(Data(prefixed.utf8)))
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><meta http-equiv="refresh" content="0"/>            <object data="javascript:alert(1)"><p>x</p></object><embed src="x.swf"/><link rel="stylesheet" href="s.css"/>            <base href="https://evil/"/><rect width="10" height="10"/></svg>
            """
        let clean = String(decoding: try DWSVGSanitizer.sanitize(Data(svg.utf8)), as: UTF8.self)
        for gone in ["<meta", "<object", "javascript", "<p>", "<embed", "<link", "<base"] {
            XCTAssertFalse(clean.contains(gone), "\(gone) left in:\n\(clean)")
        }
        XCTAssertTrue(clean.contains(#"<rect width="10" height="10"/>"#), clean)
        let bare = Data(#"<svg width="4" height="4"><rect width="4" height="4"/></svg>"#.utf8)
        XCTAssertEqual(try DWSVGSanitizer.sanitize(bare), bare, "no namespace declared: kept as it is")
    }

    // MARK: Helpers

    /// `svg` rendered by `rsvg-convert -w W -h H` (Debian librsvg2-bin), as a bitmap.
    private func rsvgConvert(_ svg: String, width: Int, height: Int) throws -> DWBitmap {
        try DWImage(data: RSVGConvert.png(Data(svg.utf8), width: width, height: height)).bitmap()
    }

    /// Mean and largest per-channel difference of two same-sized bitmaps (colour weighted by alpha, and alpha).
    private func meanAndMaxDifference(_ a: DWBitmap, _ b: DWBitmap) throws -> (mean: Double, max: Int) {
        XCTAssertEqual([a.width, a.height], [b.width, b.height])
        guard a.width == b.width, a.height == b.height else { return (.infinity, .max) }
        var total = 0, largest = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.rgba(x, y), q = b.rgba(x, y)
                let diffs = [
                    (p.0 * p.3 - q.0 * q.3) / 255, (p.1 * p.3 - q.1 * q.3) / 255, (p.2 * p.3 - q.2 * q.3) / 255,
                    p.3 - q.3
                ].map(abs)
                total += diffs.reduce(0, +)
                largest = max(largest, diffs.max()!)
            }
        }
        return (Double(total) / Double(a.width * a.height * 4), largest)
    }

    private func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
        }
        return 0
    }
}

/// SVG documents the SVG tests share.
enum SVGFixtures {
    /// ``SampleImages/svgDrawing``: 100 × 50, a red square (5…45), a blue circle (centre 75,25, r 20), a green diagonal.
    static let drawing = String(decoding: SampleImages.svgDrawing, as: UTF8.self)

    /// A small drawing declared `width` × `height` (scaled to it by its viewBox).
    static func sized(_ width: String, _ height: String) -> String {
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 2 1">\
        <rect width="1" height="1" fill="#ff0000"/></svg>
        """
    }

    /// The drawing plus every kind of external reference to `href` (none for nil): an `xml-stylesheet`, `<image>`,
    /// `xlink:href`, `<use>`, CSS `url()` in a style sheet and a `fill`, `xi:include`.
    static func references(_ href: String?) -> String {
        let refs =
            href.map { href in
                """
                <style>rect { fill: url(\(href)); } .b { background-image: url('\(href)'); }</style>
                <image href="\(href)" x="0" y="0" width="100" height="50"/>
                <image xlink:href="\(href)" x="0" y="0" width="100" height="50"/>
                <use href="\(href)#a"/><use xlink:href="\(href)"/>
                <circle cx="10" cy="10" r="3" fill="url(\(href)#g)" class="b"/>
                <xi:include href="\(href)" parse="text"/>
                """
            } ?? ""
        let stylesheet = href.map { "<?xml-stylesheet type=\"text/css\" href=\"\($0)\"?>\n" } ?? ""
        return """
            \(stylesheet)<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" \
            xmlns:xi="http://www.w3.org/2001/XInclude" width="100" height="50">
            <rect x="5" y="5" width="40" height="40" fill="#00ff00"/>\(refs)
            </svg>
            """
    }

    /// A 1 × 1 red PNG as a data: URL (kept by the sanitiser in `<image>`).
    static let redDataURL =
        "data:image/png;base64,"
        + SampleImages.png(width: 1, height: 1) { _, _ in (255, 0, 0, 255) }.base64EncodedString()

    /// Everything imgproxy's sanitiser strips (and two ways around it), beside what it keeps.
    static func dirty(dataImage: String) -> String {
        """
        <?xml version="1.0"?>
        <?xml-stylesheet type="text/xsl" href="http://127.0.0.1:9/evil.xsl"?>
        <!DOCTYPE svg [
          <!ENTITY plain "text">
          <!ENTITY evil "<script>alert(1)</script>">
          <!ATTLIST svg onload CDATA "alert(2)">
        ]>
        <!-- keep me -->
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="50" \
        onload="alert(3)">
          <style><![CDATA[ .a { fill: #0000ff } ]]></style>
          <script type="text/javascript"><![CDATA[ alert(4) ]]></script>
          <svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(5)</svg:script>
          <rect id="r" x="5" y="5" width="40" height="40" fill="#ff0000"/>
          <circle id="dot" class="a" cx="75" cy="25" r="20" OnMouseOver="alert(6)" onclick='alert(7)'/>
          <a href="javascript:alert(8)"><text x="1" y="48" font-size="1">a</text></a>
          <a xlink:href=" &#106;avascript:alert(9)"><text x="1" y="48" font-size="1">b</text></a>
          <a href="https://example.com/"><text x="1" y="48" font-size="1">c</text></a>
          <use href="#dot" x="0"/>
          <use xlink:href="http://127.0.0.1:9/ext.svg#a"/>
          <image href="\(dataImage)" x="0" y="0" width="1" height="1"/>
          <set attributeName="href" to="javascript:alert(10)"/>
          <foreignObject width="1" height="1"><iframe xmlns="http://www.w3.org/1999/xhtml" src="javascript:alert(11)"/>
            <form xmlns="http://www.w3.org/1999/xhtml"><input value="alert(12)"/></form></foreignObject>
        </svg>
        """
    }
}
