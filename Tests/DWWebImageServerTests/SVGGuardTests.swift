// What librsvg may be given (SVGGuard) and how long it may run (the helper process under a CPU budget), through the
// engine's public calls: references, embedded images sniffed by bytes, CSS, entities, the caps, the <use> graph, the
// size of a document without one, the budget, and --source-formats' library setting.
import DWTestServer
import DWWebImage
import DWWebImageProcessing
import XCTest

final class SVGGuardTests: XCTestCase {
    static let ns = "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\""

    /// A 10 × 10 document around `body`.
    static func svg(_ body: String, prolog: String = "", size: String = "width=\"10\" height=\"10\"") -> Data {
        Data("\(prolog)<svg \(ns) \(size)>\(body)</svg>".utf8)
    }

    /// An `<image>` whose href is a data: URL of `payload` declared `type`.
    static func image(
        _ payload: Data, type: String = "image/png", attribute: String = "href", element: String = "image"
    )
        -> String
    {
        "<\(element) width=\"10\" height=\"10\" \(attribute)=\"data:\(type);base64,\(payload.base64EncodedString())\"/>"
    }

    private func assertRefused(
        _ data: Data, _ code: DWWebImageError.Code = .notAnImage, _ why: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try Imgproxy.run("f:png", on: data), why, file: file, line: line) {
            let error = $0 as? DWWebImageError
            XCTAssertEqual(error?.code, code, "\(why): \($0)", file: file, line: line)
            XCTAssertTrue(
                error?.message.contains("SVG") ?? false, "\(why): the message names why: \($0)", file: file, line: line)
        }
        let image = try? DWImage(data: data)
        XCTAssertThrowsError(try image?.reportedSize, "\(why): measuring it is refused too", file: file, line: line)
    }

    func testEmbeddedImagesMustSniffAsPNGJPEGGIFOrWebPAndMatchTheirDeclaredType() throws {
        let red = SampleImages.png(width: 2, height: 2) { _, _ in (255, 0, 0, 255) }
        let drawn = try Imgproxy.run("f:png", on: Self.svg(Self.image(red))).1
        XCTAssertTrue(drawn.isColour(5, 5, 255, 0, 0), "a PNG is drawn: \(drawn.rgba(5, 5))")
        XCTAssertNoThrow(try Imgproxy.run("f:png", on: Self.svg(Self.image(red, type: "", attribute: "xlink:href"))))
        XCTAssertNoThrow(
            try Imgproxy.run(
                "f:png",
                on: Self.svg(
                    "<filter id=\"f\">\(Self.image(red, element: "feImage"))</filter><rect width=\"10\" height=\"10\" filter=\"url(#f)\"/>"
                )))
        let xpm = Data("/* XPM */\nstatic char *x[] = {\"1 1 1 1\", \"a c #FF0000\", \"a\"};\n".utf8)
        let pnm = Data("P6 1 1 255 ".utf8) + Data([255, 0, 0])
        let tga = Data([0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 24, 0, 0, 0, 255])
        for (payload, type, why) in [
            (xpm, "image/x-xpixmap", "XPM"), (pnm, "image/x-portable-pixmap", "PNM"),
            (tga, "image/x-tga", "TGA"), (xpm, "image/png", "XPM declared PNG"),
            (red, "image/x-xpixmap", "a PNG declared XPM (gdk-pixbuf would use the XPM loader)"),
            (SampleImages.bmp(width: 2, height: 2), "image/bmp", "BMP"),
            (Self.svg(""), "image/svg+xml", "SVG in SVG")
        ] {
            assertRefused(Self.svg(Self.image(payload, type: type)), .notAnImage, why)
        }
        assertRefused(Self.svg("<image href=\"data:image/png;base64,iVBOR!!w0KGgo=\"/>"), .notAnImage, "broken base64")
    }

    func testEmbeddedPixelsAreSummedAgainstThePixelLimitInForce() throws {
        let png = SampleImages.png(width: 300, height: 200)  // 60,000 pixels each
        var limits = DWProcessingLimits()
        limits.maxPixelCount = 150_000
        let convert = DWConvert(format: .png)
        let two = try DWImage(data: Self.svg(Self.image(png) + Self.image(png)))
        XCTAssertNoThrow(try DWImageProcessing.process(two, with: convert, limits: limits), "120,000 pixels")
        let three = try DWImage(data: Self.svg(Self.image(png) + Self.image(png) + Self.image(png)))
        XCTAssertThrowsError(try DWImageProcessing.process(three, with: convert, limits: limits)) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge, "180,000 pixels: \($0)")
        }
        XCTAssertThrowsError(
            try DWImageProcessing.withLimits(limits) { () throws(DWWebImageError) in try three.reportedSize },
            "the size measurement (/info, the result check) is held to the same limits")
        XCTAssertNoThrow(try three.reportedSize, "the process-wide limits (64 MP) allow it")
    }

    func testReferencesOutsideTheDocumentAreRefused() throws {
        let refused: [(String, String)] = [
            ("<image href=\"http://127.0.0.1:9/a.png\"/>", "an http image"),
            ("<image xlink:href=\"file:///etc/passwd\"/>", "a file image"),
            ("<image href=\"a.png\"/>", "a relative image"),
            ("<use href=\"data:image/svg+xml,%3Csvg/%3E#a\"/>", "a data: document in <use>"),
            ("<use xlink:href=\"other.svg#a\"/>", "another document in <use>"),
            ("<rect fill=\"url(data:image/svg+xml,x#g)\" width=\"1\" height=\"1\"/>", "a paint server in a data: URL"),
            ("<rect style=\"fill: url( 'other.svg#g' )\"/>", "a paint server in another document"),
            ("<rect style=\"fill:u\\72l(data:x)\"/>", "url() spelt with a CSS escape"),
            ("<rect style=\"fill:&#117;rl(data:x)\"/>", "url() spelt with a character reference"),
            ("<style>@import url(#x);</style>", "@import"),
            ("<style>.a { fill: ur<![CDATA[l(data:x) }]]></style>", "url() split by a CDATA section"),
            (
                "<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" href=\"data:text/plain,x\" parse=\"text\"/>",
                "XInclude"
            ),
            ("<filter id=\"f\"><feImage href=\"http://127.0.0.1:9/a.png\"/></filter>", "an http feImage")
        ]
        for (body, why) in refused { assertRefused(Self.svg(body), .notAnImage, why) }
        assertRefused(
            Self.svg("", prolog: "<?xml-stylesheet type=\"text/css\" href=\"data:text/css,rect{}\"?>"),
            .notAnImage, "xml-stylesheet")
        assertRefused(
            Self.svg("<style>&u;rl(data:x)</style>", prolog: "<!DOCTYPE svg [<!ENTITY u \"u\">]>"),
            .notAnImage, "url() completed by an entity")
        // UTF-7: libxml2 would read "+ADw-image ..." as an <image> this scan never sees
        let hidden = "+ADw-image href=+ACI-data:image/x-xpixmap;base64,AAAA+ACI-/+AD4-"
        assertRefused(Self.svg(hidden, prolog: "<?xml version=\"1.0\" encoding=\"UTF-7\"?>"), .notAnImage, "UTF-7")
        XCTAssertNoThrow(
            try Imgproxy.run("f:png", on: Self.svg("", prolog: "<?xml version='1.0' encoding='ISO-8859-1'?>")))
        assertRefused(
            Self.svg("<image/>", prolog: "<!DOCTYPE svg [<!ATTLIST image href CDATA \"data:,x\">]>"),
            .notAnImage, "ATTLIST")
        assertRefused(
            Self.svg("<style>&e;</style>", prolog: "<!DOCTYPE svg [<!ENTITY e \"@import url(a.css);\">]>"),
            .notAnImage, "an entity holding CSS that loads")
        // what stays: fragments, links, plain entities (Illustrator's), CSS that names fragments
        let kept = Self.svg(
            """
            <defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/></linearGradient></defs>
            <style>.a { fill: url(#g); font-family: "\\5FAE\\8F6F" }</style>
            <a href="https://example.com/"><rect class="a" width="10" height="10" style="stroke: url( '#g' )"/></a>
            <use href="#g"/><text>&t; url(x)</text>
            """, prolog: "<!DOCTYPE svg [<!ENTITY t \"text\">]>")
        XCTAssertTrue(try Imgproxy.run("f:png", on: kept).1.isColour(5, 5, 255, 0, 0))
    }

    func testTheCapsOnFiltersElementsAndUseExpansion() throws {
        let chart = Self.svg(
            "<g id=\"bar\"><rect width=\"1\" height=\"5\"/></g>"
                + (0..<500).map { "<use href=\"#bar\" x=\"\($0 % 10)\"/>" }.joined())
        XCTAssertNoThrow(try Imgproxy.run("f:png", on: chart), "a chart of 500 <use>s")
        let filters = (0..<101).map { _ in "<feOffset dx=\"0\"/>" }.joined()
        assertRefused(Self.svg("<filter id=\"f\">\(filters)</filter>"), .tooLarge, "101 filter primitives")
        // ten <use>s of the level below, eight levels: 10^8 elements from 90
        let levels = (0..<8).map { i in
            "<g id=\"a\(i + 1)\">" + String(repeating: "<use href=\"#a\(i)\"/>", count: 10) + "</g>"
        }
        assertRefused(
            Self.svg("<rect id=\"a0\" width=\"1\" height=\"1\"/>" + levels.joined()), .tooLarge, "a <use> bomb")
        assertRefused(Self.svg("<g id=\"a\"><use href=\"#a\"/></g>"), .notAnImage, "a <use> of its own ancestor")
        assertRefused(
            Self.svg(String(repeating: "<g>", count: 300) + String(repeating: "</g>", count: 300)), .tooLarge,
            "nesting deeper than libxml2's 256")
    }

    func testADocumentWithoutASizeIsMeasuredWithoutRendering() throws {
        // Its drawing would take longer than the budget: measuring it must not draw it.
        let heavy = String(repeating: "<feMorphology radius=\"30\"/>", count: 20)
        let unsized = try DWImage(
            data: Self.svg(
                "<filter id=\"m\">\(heavy)</filter><rect x=\"2\" width=\"10\" height=\"8\" "
                    + "filter=\"url(#m)\"/>", size: ""))
        var limits = DWProcessingLimits()
        limits.renderBudget = 0.3
        let started = ProcessInfo.processInfo.systemUptime
        let size = try DWImageProcessing.withLimits(limits) { () throws(DWWebImageError) in try unsized.reportedSize }
        XCTAssertEqual([size.width, size.height], [300, 150], "no size declared: CSS's default object size")
        XCTAssertLessThan(ProcessInfo.processInfo.systemUptime - started, 0.25, "no render (it costs seconds)")
        let oneSide = try DWImage(data: Self.svg("<rect width=\"10\" height=\"8\"/>", size: "width=\"1in\""))
        XCTAssertEqual(try oneSide.reportedSize.width, 72, "a declared side is kept")
        XCTAssertEqual(try oneSide.reportedSize.height, 150)
        let plain = try DWImage(data: Self.svg("<rect x=\"2\" width=\"10\" height=\"8\" fill=\"#f00\"/>", size: ""))
        let drawn = try DWImageProcessing.process(plain, with: DWConvert(format: .png), limits: DWProcessingLimits())
        XCTAssertEqual([drawn.pixelWidth, drawn.pixelHeight], [300, 150], "rendered at the size it was measured at")
        let bitmap = try drawn.bitmap()
        XCTAssertTrue(bitmap.isColour(5, 5, 255, 0, 0) && bitmap.rgba(50, 50).3 == 0, "drawn 1:1, not stretched")
    }

    /// A `side`-pixel square under a chain of `count` `<feMorphology>` filters of `radius`: seconds of librsvg's CPU.
    private static func filterChain(count: Int, radius: Int, side: Int) throws -> DWImage {
        let chain = String(repeating: "<feMorphology radius=\"\(radius)\"/>", count: count)
        return try DWImage(
            data: svg(
                "<filter id=\"m\">\(chain)</filter><rect width=\"\(side)\" height=\"\(side)\" "
                    + "fill=\"#888\" filter=\"url(#m)\"/>", size: "width=\"\(side)\" height=\"\(side)\""))
    }

    func testTheRenderBudgetStopsAFilterChainInTheHelper() throws {
        let heavy = try Self.filterChain(count: 20, radius: 30, side: 400)
        var limits = DWProcessingLimits()
        limits.renderBudget = 0.5
        let before = childrenCPU()
        XCTAssertThrowsError(try DWImageProcessing.process(heavy, with: DWConvert(format: .png), limits: limits)) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge, "\($0)")
            XCTAssertTrue(($0 as? DWWebImageError)?.message.contains("budget") ?? false, "\($0)")
        }
        let spent = childrenCPU() - before
        XCTAssertGreaterThan(spent, 0.4, "the helper rendered until its budget")
        XCTAssertLessThan(spent, 1.2, "and was stopped soon after it: \(spent) s of CPU")
    }

    /// Work stopped while librsvg runs (nobody waits for the variant): the helper is killed at once (10007), not
    /// left to spend its render budget.
    func testStoppedWorkKillsTheSVGHelperAtOnce() throws {
        let heavy = try Self.filterChain(count: 100, radius: 50, side: 600)
        var limits = DWProcessingLimits()
        limits.renderBudget = 5
        let cancellation = DWWorkCancellation()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { cancellation.cancel() }
        let (before, started) = (childrenCPU(), ProcessInfo.processInfo.systemUptime)
        XCTAssertThrowsError(
            try DWWorkCancellation.$current.withValue(cancellation) {
                try DWImageProcessing.process(heavy, with: DWConvert(format: .png), limits: limits)
            }
        ) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .cancelled, "\($0)")
        }
        XCTAssertLessThan(ProcessInfo.processInfo.systemUptime - started, 2, "stopped, not run to its budget")
        XCTAssertLessThan(childrenCPU() - before, 1.5, "the helper was killed soon after the stop")
    }

    func testSourceFormatsRefuseOtherFormatsBeforeAnyDecoder() throws {
        var limits = DWProcessingLimits()
        limits.sourceFormats = [.png, .jpeg]
        let tiff = try DWImage(data: SampleImages.tiff(width: 4, height: 4))
        let svg = try DWImage(data: Self.svg("<rect width=\"1\" height=\"1\"/>"))
        for image in [tiff, svg] {
            XCTAssertThrowsError(try DWImageProcessing.process(image, with: DWConvert(format: .png), limits: limits)) {
                XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage, "\($0)")
            }
        }
        let png = try DWImage(data: SampleImages.png(width: 4, height: 4))
        XCTAssertNoThrow(try DWImageProcessing.process(png, with: DWConvert(format: .webp), limits: limits))
    }

    func testAHelperThatFailsOrAnswersNonsenseIsA422NotACrash() throws {
        let image = try DWImage(data: Self.svg("<rect width=\"10\" height=\"10\"/>"))
        defer { DWSVGRenderer.helperPath = nil }
        XCTAssertNil(DWSVGRenderer.helperProblem, "dwfetch-svg is built beside the test bundle")
        // missing; exits at once; echoes the document back instead of a record
        for helper in ["/nonexistent/dwfetch-svg", "/bin/false", "/bin/cat"] {
            DWSVGRenderer.helperPath = helper
            XCTAssertThrowsError(try image.bitmap(), helper) {
                XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage, "\(helper): \($0)")
            }
        }
        DWSVGRenderer.helperPath = "/nonexistent/dwfetch-svg"
        XCTAssertNotNil(DWSVGRenderer.helperProblem)
        DWSVGRenderer.helperPath = nil
        XCTAssertEqual(try image.bitmap().width, 10, "and the real helper again")
    }

    /// CPU seconds of this process's reaped children (the SVG helpers), from /proc/self/stat.
    private func childrenCPU() -> Double {
        let stat = (try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8)) ?? ""
        let fields = stat[(stat.lastIndex(of: ")").map { stat.index(after: $0) } ?? stat.startIndex)...]
            .split(separator: " ")
        // after the name: state is field 3, cutime and cstime are fields 16 and 17
        guard fields.count > 15, let user = Double(fields[13]), let system = Double(fields[14]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
