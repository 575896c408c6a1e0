// imgproxy's option syntax: long and short names, argument rules, presets, exp, cb, and errors that name the option.
import DWWebImage
import DWWebImageProcessing
@testable import DWWebImageServer
import XCTest

final class ParserTests: XCTestCase {
    /// Each pair names one option by its long and its short name; both parse to the same non-default transform.
    func testLongAndShortNamesAgree() throws {
        let pairs = [
            ("resize:fill:10:20:1:1:so", "rs:fill:10:20:1:1:so"), ("size:10:20:1", "s:10:20:1"),
            ("resizing_type:fill-down", "rt:fill-down"), ("width:10", "w:10"), ("height:10", "h:10"),
            ("min-width:10", "mw:10"), ("min-height:10", "mh:10"), ("zoom:2:3", "z:2:3"), ("enlarge:1", "el:1"),
            ("extend:1:nowe:5:5", "ex:1:nowe:5:5"), ("extend_aspect_ratio:1", "exar:1"), ("extend_ar:1", "exar:1"),
            ("gravity:fp:0.5:0.25", "g:fp:0.5:0.25"), ("crop:10:20:sm", "c:10:20:sm"),
            ("trim:5:ff00ff:1:0", "t:5:ff00ff:1:0"), ("padding:1:2:3:4", "pd:1:2:3:4"), ("auto_rotate:0", "ar:0"),
            ("rotate:90", "rot:90"), ("flip:1:1", "fl:1:1"), ("background:255:0:255", "bg:ff00ff"),
            ("blur:2", "bl:2"), ("sharpen:1.5", "sh:1.5"), ("pixelate:8", "pix:8"),
            ("adjust:10:1.2:0.5", "a:10:1.2:0.5"),
            ("monochrome:0.5:ff0000", "mc:0.5:ff0000"), ("watermark:0.5:soea:10:10:0.2", "wm:0.5:soea:10:10:0.2"),
            ("strip_metadata:0", "sm:0"), ("keep_copyright:0", "kcr:0"), ("strip_color_profile:0", "scp:0"),
            ("enforce_thumbnail:1", "eth:1"), ("quality:70", "q:70"),
            ("format_quality:webp:60:avif:40", "fq:webp:60:avif:40"),
            ("max_bytes:1000", "mb:1000"), ("format:webp", "f:webp"), ("format:webp", "ext:webp"),
            ("skip_processing:gif:svg", "skp:gif:svg"), ("cachebuster:v2", "cb:v2"), ("dpr:2", "dpr:2")
        ]
        for (long, short) in pairs {
            let a = try Imgproxy.parse(long), b = try Imgproxy.parse(short)
            XCTAssertEqual(a, b, "\(long) vs \(short)")
            XCTAssertNotEqual(a.transform, DWTransform(), long)
        }
        XCTAssertEqual(try Imgproxy.parse("filename:cat").filename, try Imgproxy.parse("fn:cat").filename)
        XCTAssertEqual(try Imgproxy.parse("fn:Y2F0:1").filename, "cat", "base64 file name")
        XCTAssertTrue(try Imgproxy.parse("return_attachment:1").returnAttachment)
        XCTAssertTrue(try Imgproxy.parse("raw:1").raw)
    }

    func testImgproxysArgumentRules() throws {
        let t = try Imgproxy.parse("rs:fill:300:200/pd:10/z:1.5").transform
        XCTAssertEqual(t.resizingType, .fill)
        XCTAssertEqual([t.width, t.height], [300, 200])
        XCTAssertEqual(t.padding, DWPadding(top: 10, right: 10, bottom: 10, left: 10), "one padding: all sides")
        XCTAssertEqual(t.zoomY, 1.5, "one zoom: both axes")
        XCTAssertEqual(try Imgproxy.parse("pd:1:2").transform.padding, DWPadding(top: 1, right: 2, bottom: 1, left: 2))
        XCTAssertFalse(try Imgproxy.parse("el:yes").transform.enlarge, "Go's ParseBool: anything else is false")
        XCTAssertNil(try Imgproxy.parse("q:0").transform.quality, "q:0 = the default")
        XCTAssertEqual(try Imgproxy.parse("rot:-90").transform.rotate, 270)
        XCTAssertEqual(try Imgproxy.parse("bg:fff").transform.background, DWColor(red: 255, green: 255, blue: 255))
        XCTAssertNil(try Imgproxy.parse("wm:0").transform.watermark, "opacity 0: no watermark")
        XCTAssertEqual(try Imgproxy.parse("exp:0").expires, nil, "exp:0 never expires")
        XCTAssertEqual(try Imgproxy.parse("exp:1800000000").expires, 1_800_000_000)
        XCTAssertEqual(
            try DWProxyURL(target: "/x/raw:1/plain/http://127.0.0.1/a.png@webp").options.transform.format, nil,
            "raw ignores the extension")
    }

    func testUnknownAndMalformedOptionsAre400NamingTheOption() {
        let cases: [(String, String)] = [
            ("nope:1", "nope"), ("w:abc", "w"), ("w:-1", "w"), ("rs:stretch:10:10", "rs"), ("g:xx", "g"),
            ("g:sm:1", "g"), ("g:fp:2:0", "g"), ("c:-5", "c"), ("rot:45", "rot"), ("fl:1:1:1", "fl"),
            ("bg:zzzzzz", "bg"), ("bg:1:2", "bg"), ("q:101", "q"), ("fq:webp", "fq"), ("fq:bogus:50", "fq"),
            ("f:bogus", "f"), ("wm:2", "wm"), ("wm:1:sm", "wm"), ("ex:1:sm", "ex"), ("pd:1:2:3:4:5", "pd"),
            ("dpr:0", "dpr"), ("z:0", "z"), ("exp:soon", "exp"), ("pr:missing", "missing"), ("skp:bogus", "skp"),
            ("a:300", "a"), ("mc:2", "mc"), ("t:1:2:3:4:5", "t"), ("bl:-1", "bl"), ("pix:-2", "pix"),
            ("ph:1:1", "ph"), ("dpr:1e10", "dpr"), ("w:2147483648", "w")
        ]
        for (options, name) in cases {
            let (message, status) = Imgproxy.refusal(options)
            XCTAssertEqual(status, 400, options)
            XCTAssertTrue(message.contains(name), "\(options): \(message)")
        }
    }

    /// imgproxy's security options are a 403 as its default configuration answers (a known option that is
    /// forbidden, not a malformed one); allowed, they are read by imgproxy's rules. `preserve_hdr` is a boolean.
    func testSecurityOptionsForbiddenUnlessAllowed() throws {
        for option in ["msr:1", "max_src_file_size:10", "maf:2", "mafr:1", "mrd:100", "max_result_dimension:5"] {
            let (message, status) = Imgproxy.refusal(option)
            XCTAssertEqual(status, 403, option)
            XCTAssertTrue(message.contains("security processing options are not allowed"), message)
        }
        var allowing = DWPresets()
        allowing.allowSecurityOptions = true
        let parsed = try Imgproxy.parse("msr:1.5/msfs:2048/maf:3/mafr:0.25/mrd:640", presets: allowing)
        XCTAssertEqual(parsed.security.maxSrcResolution, 1_500_000)
        XCTAssertEqual(parsed.security.maxSrcFileSize, 2048)
        XCTAssertEqual(parsed.security.maxAnimationFrames, 3)
        XCTAssertEqual(parsed.security.maxAnimationFrameResolution, 250_000)
        XCTAssertEqual(parsed.transform.maxResultDimension, 640)
        for bad in ["msr:0", "maf:0", "msfs:x", "mrd:1:2"] {
            XCTAssertEqual(Imgproxy.refusal(bad, presets: allowing).1, 400, bad)
        }
        XCTAssertTrue(try Imgproxy.parse("ph:1/w:10").transform.preserveHDR)
        XCTAssertFalse(try Imgproxy.parse("preserve_hdr:0/w:10").transform.preserveHDR)
    }

    /// imgproxy has no parse-time bounds on sizes: any DPR, any width (the server's result limits judge the size).
    func testNoParseTimeBoundsOnDPRAndSizes() throws {
        let parsed = try Imgproxy.parse("dpr:20/w:100000/h:16385/mw:50000")
        XCTAssertEqual(
            [parsed.transform.width, parsed.transform.height, parsed.transform.minWidth], [100000, 16385, 50000])
        XCTAssertEqual(parsed.transform.dpr, 20)
        var huge = DWTransform()
        (huge.width, huge.dpr, huge.zoomX, huge.enlarge) = (Int(Int32.max), 1e8, 1e8, true)
        let size = huge.resultSize(sourceWidth: 10, sourceHeight: 10)
        XCTAssertEqual(size.width, Int(Int32.max), "saturates, never traps")
    }

    func testExpiredURLIs404() {
        let (message, status) = Imgproxy.refusal("exp:1600000000")
        XCTAssertEqual(status, 404)
        XCTAssertTrue(message.contains("expired"), message)
    }

    func testPresetsDefaultAndOnlyPresets() throws {
        var presets = DWPresets()
        XCTAssertTrue(presets.add("default=q:70/bl:1"))
        XCTAssertTrue(presets.add("thumb=rs:fill:100:100/g:sm"))
        XCTAssertTrue(presets.add("loop=pr:loop/w:5"))
        XCTAssertFalse(presets.add("=w:1"))
        XCTAssertFalse(presets.add("bad"))
        let plain = try Imgproxy.parse("w:10", presets: presets).transform
        XCTAssertEqual(plain.quality, 70, "default applies to every request")
        XCTAssertEqual(plain.width, 10)
        let named = try Imgproxy.parse("pr:thumb/q:90", presets: presets)
        XCTAssertEqual(named.transform.resizingType, .fill)
        XCTAssertEqual(named.transform.gravity.kind, .smart)
        XCTAssertEqual(named.transform.quality, 90, "later options win over the preset")
        XCTAssertEqual(named.presets, ["default", "thumb"])
        XCTAssertEqual(try Imgproxy.parse("preset:loop", presets: presets).transform.width, 5, "recursion is skipped")
        presets.onlyPresets = true
        let only = try DWProxyURL(target: "/insecure/thumb/plain/http://127.0.0.1/a.png", presets: presets).options
        XCTAssertEqual(only.transform.width, 100)
        XCTAssertThrowsError(
            try DWProxyURL(target: "/insecure/w:10/plain/http://127.0.0.1/a.png", presets: presets),
            "with --only-presets an option segment is an unknown preset")
    }

    /// `cb:` joins the cache key; the same request is one key whether it comes from the CLI's flags or a URL.
    func testCacheBusterChangesTheKeyAndTheCLIAndServerSharePlans() throws {
        let server = DWImageServer(configuration: DWServeConfiguration.testing)
        func key(_ options: String) throws -> String {
            let url = try DWProxyURL(target: "/insecure/\(options)/plain/\(Imgproxy.source)")
            return DWImageProcessors.cacheKey(url: url.source, processors: server.plan(for: url).map { [$0] } ?? [])
        }
        XCTAssertNotEqual(try key("w:10/cb:1"), try key("w:10/cb:2"))
        XCTAssertNotEqual(try key("w:10/cb:1"), try key("w:10"))
        XCTAssertEqual(try key("w:10/cb:1"), try key("cachebuster:1/width:10"))
        // dwfetch --width 32 --format webp --quality 80 builds this transform (DWFetchPixelsTests pins its variant).
        var cli = DWTransform()
        (cli.width, cli.format, cli.quality) = (32, .webp, 80)
        XCTAssertTrue(try key("rs:fit:32:0/f:webp/q:80").hasSuffix("@22:plan(w:32/f:webp/q:80)"))
        XCTAssertEqual(
            try key("w:32/q:80/f:webp"),
            DWImageProcessors.cacheKey(url: Imgproxy.source, processors: cli.processors()))
        // A URL naming no format picks one per source and keeps an SVG source as sanitised SVG: its key names both
        // rules (a cache shared with dwfetch never holds the one's bytes under the other's key).
        let unnamed = try XCTUnwrap(server.plan(for: try DWProxyURL(target: "/insecure/w:32/plain/\(Imgproxy.source)")))
        XCTAssertEqual(unnamed.identifier, "plan(w:32;out=preferred(jpeg,png,gif;accept=-);svg=sanitize)")
        XCTAssertNil(server.plan(for: try DWProxyURL(target: "/insecure/raw:1/plain/\(Imgproxy.source)")), "raw:1")
    }
}

extension DWServeConfiguration {
    /// A configuration for in-process tests: a private cache directory, nothing listening.
    static var testing: DWServeConfiguration {
        var configuration = DWServeConfiguration()
        configuration.cacheDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("dwimgproxy-tests-\(UUID().uuidString)", isDirectory: true)
        configuration.tunesMalloc = false
        return configuration
    }
}
