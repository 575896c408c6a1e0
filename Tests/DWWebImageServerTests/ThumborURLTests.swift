// The thumbor dialect's parsing without a server: the grammar's parts, the classification rule, the signature, the
// transform a URL becomes, and filter arguments.
import DWImageTransform
import DWWebImage
import XCTest

@testable import DWWebImageServer

final class ThumborURLTests: XCTestCase {
    private var unsafe: DWThumborSettings {
        var settings = DWThumborSettings()
        settings.allowUnsafe = true
        return settings
    }

    /// Every part of the grammar in order; a segment out of order starts the image, as thumbor's regex reads it.
    func testGrammarParts() throws {
        let p = try XCTUnwrap(
            DWThumborPath(
                "trim:bottom-right:12/1x2:30x40/fit-in/-300x-0/right/bottom/smart/filters:quality(80):blur(2)/a.com/b.jpg"
            ))
        XCTAssertEqual(p.trim?.corner, "bottom-right")
        XCTAssertEqual(p.trim?.tolerance, 12)
        let quirk = try XCTUnwrap(DWThumborPath("trim:10/a.com/b.jpg"))
        XCTAssertEqual(quirk.trim?.corner, "bottom-right", "thumbor reads trim:N as the corner N: not top-left")
        XCTAssertEqual(quirk.trim?.tolerance, 0)
        XCTAssertEqual(try XCTUnwrap(DWThumborPath("trim/a.com/b.jpg")).trim?.corner, "top-left")
        XCTAssertEqual(p.crop.map { [$0.left, $0.top, $0.right, $0.bottom] }, [1, 2, 30, 40])
        XCTAssertTrue(p.fitIn)
        XCTAssertEqual([p.width, p.height], [.pixels(300), .pixels(0)])
        XCTAssertTrue(p.flipHorizontal && p.flipVertical && p.smart)
        XCTAssertEqual([p.halign, p.valign], ["right", "bottom"])
        XCTAssertEqual(p.filters, "quality(80):blur(2)")
        XCTAssertEqual(p.image, "a.com/b.jpg")
        let late = try XCTUnwrap(DWThumborPath("left/300x200/a.com/b.jpg"))
        XCTAssertEqual(late.image, "300x200/a.com/b.jpg", "a size after the alignment is part of the image")
        XCTAssertEqual(
            try XCTUnwrap(DWThumborPath("filters:watermark(a.com/w.png,0,0,0)/a.com/b.jpg")).image,
            "a.com/b.jpg", "the filters part runs to the first )/")
        XCTAssertNil(DWThumborPath("300x200/"), "no image")
    }

    /// The classification rule: padding means thumbor; `unsafe` is thumbor's unless imgproxy's shape follows (or
    /// always with imgproxy signing on); everything is imgproxy's with the dialect off.
    func testClassification() {
        let source = DWProxyURL.base64URLEncode(Array("http://a.com/b.jpg".utf8))
        let imgproxy = [
            "/unsafe/plain/http://a.com/b.jpg", "/unsafe/rs:fit:10:10/plain/http://a.com/b.jpg",
            "/unsafe/" + source, "/unsafe/w:10/" + source + ".png", "/insecure/10x10/a.com/b.jpg",
            "/" + String(repeating: "A", count: 43) + "/rs:fit:1:1/plain/http://a.com/b"
        ]
        for path in imgproxy {
            XCTAssertFalse(DWThumborDialect.isThumbor(path, settings: unsafe, imgproxySigned: false), path)
        }
        let thumbor = [
            "/unsafe/10x10/a.com/b.jpg", "/unsafe/a.com/b.jpg", "/unsafe/localhost:8080/b.jpg",
            "/unsafe/127.0.0.1:8080/b.jpg", "/unsafe/trim:10/a.com/b.jpg",
            "/unsafe/filters:quality(1)/a.com/b.jpg", "/unsafe/1x1:5x5/a.com/b.jpg",
            "/" + String(repeating: "A", count: 27) + "=/10x10/a.com/b.jpg"
        ]
        for path in thumbor {
            XCTAssertTrue(DWThumborDialect.isThumbor(path, settings: unsafe, imgproxySigned: false), path)
        }
        XCTAssertTrue(DWThumborDialect.isThumbor("/unsafe/" + source, settings: unsafe, imgproxySigned: true))
        XCTAssertFalse(DWThumborDialect.isThumbor(thumbor[0], settings: DWThumborSettings(), imgproxySigned: false))
    }

    /// libthumbor's signature for a known key and path (computed by libthumbor's CryptoURL), rotation, refusal.
    func testSignature() throws {
        let signer = try XCTUnwrap(DWThumborSigner(key: "MY_SECURE_KEY"))
        let path = "300x200/smart/my.server.com/some/path/to/image.jpg"
        let signature = signer.signature(for: path)
        XCTAssertEqual(signature, "OHHMqHwGrH1gubkMMveC8Ireg7A=", "libthumbor's CryptoURL for this key and path")
        XCTAssertTrue(DWThumborSigner.isSignatureShaped(Substring(signature)))
        XCTAssertTrue(signer.isValid(signature: signature, for: path))
        XCTAssertFalse(signer.isValid(signature: signature, for: path + "x"))
        var settings = DWThumborSettings()
        settings.signers = [try XCTUnwrap(DWThumborSigner(key: "old")), signer]
        XCTAssertNoThrow(try DWThumborURL(target: "/\(signature)/\(path)", settings: settings))
        XCTAssertThrowsError(try DWThumborURL(target: "/unsafe/\(path)", settings: settings)) { error in
            XCTAssertEqual((error as? DWProxyURL.ParseError)?.status, 403)
        }
        XCTAssertNil(DWThumborSigner(key: ""))
    }

    /// What a URL becomes: thumbor's defaults, the box, the mirrored alignment and crop corner under flips, and
    /// the image part's scheme rule.
    func testTransform() throws {
        let url = try DWThumborURL(target: "/unsafe/10x20:110x220/-100x50/left/top/a.com%2Fb.jpg?x=1", settings: unsafe)
        let t = url.url.options.transform
        XCTAssertEqual(url.url.source, "http://a.com/b.jpg")
        XCTAssertEqual([t.width, t.height], [100, 50])
        XCTAssertEqual(t.resizingType, .fill)
        XCTAssertTrue(t.enlarge && t.flipHorizontal && !t.flipVertical && !t.autoRotate && !t.keepCopyright)
        XCTAssertFalse(t.stripColorProfile)
        XCTAssertEqual(t.gravity, DWGravity(.focusPoint, x: 1, y: 0), "left, mirrored by the flip")
        XCTAssertEqual(t.cropGravity, DWGravity(.northEast, x: 10, y: 20))
        XCTAssertEqual([t.cropWidth, t.cropHeight], [100, 200])
        let fit = try DWThumborURL(
            target: "/unsafe/fit-in/100x100/filters:fill(red):max_age(5)/https://a.com/b.png",
            settings: unsafe)
        XCTAssertEqual(fit.url.options.transform.resizingType, .fit)
        XCTAssertFalse(fit.url.options.transform.enlarge)
        XCTAssertEqual(
            fit.url.options.transform.pixelFilters,
            [
                .letterbox(
                    width: 100, height: 100, adaptive: false,
                    fill: .color(DWColor(red: 255, green: 0, blue: 0)))
            ])
        XCTAssertNil(fit.url.options.transform.background, "fill_transparent not given: nothing merged")
        XCTAssertEqual(fit.url.source, "https://a.com/b.png")
        XCTAssertEqual(fit.request.maxAge, 5)
    }

    /// trim becomes thumbor's own trim by its corner (`trim:N` is thumbor's bottom-right, tolerance 0); what is not
    /// served is a 400 saying so.
    func testTrimAndWhatIsNotServed() throws {
        let expected: [(String, DWTrim)] = [
            ("trim:top-left:30", DWTrim(thumbor: .topLeft, tolerance: 30)),
            ("trim", DWTrim(thumbor: .topLeft, tolerance: 0)),
            ("trim:bottom-right", DWTrim(thumbor: .bottomRight, tolerance: 0)),
            ("trim:bottom-right:12", DWTrim(thumbor: .bottomRight, tolerance: 12)),
            ("trim:10", DWTrim(thumbor: .bottomRight, tolerance: 0))
        ]
        for (path, trim) in expected {
            let trimmed = try DWThumborURL(target: "/unsafe/\(path)/a.com/b.png", settings: unsafe)
            XCTAssertEqual(trimmed.url.options.transform.trim, trim, path)
        }
        for path in ["trim/1x1:9x9", "debug", "origx100"] {
            XCTAssertThrowsError(try DWThumborURL(target: "/unsafe/\(path)/a.com/b.png", settings: unsafe), path) {
                XCTAssertEqual(($0 as? DWProxyURL.ParseError)?.status, 400, path)
            }
        }
    }

    /// thumbor's argument rules, and a 400 naming the filter otherwise.
    func testFilterArguments() throws {
        XCTAssertEqual(
            try DWThumborFilter.list("quality(85):format(heic):blur(2, 1.5):fill(transparent,1)"),
            [.quality(85), .format(.heic), .blur(radius: 2, sigma: 1.5), .fill(.color(nil), fillTransparent: true)])
        XCTAssertEqual(try DWThumborFilter.list("blur(3,-40)"), [.blur(radius: 3, sigma: 3)], "cut at the radius")
        XCTAssertEqual(
            try DWThumborFilter.list("brightness(-10):contrast( 20 ):rgb(1,-2,300)"),
            [.brightness(-10), .contrast(20), .rgb(1, -2, 100)])
        XCTAssertEqual(
            try DWThumborFilter.list("round_corner(10|5,1,2,3,1):equalize()"),
            [.roundCorner(10, 5, DWColor(red: 1, green: 2, blue: 3), transparent: true), .equalize])
        XCTAssertEqual(
            try DWThumborFilter.list("convolution(1;2;1,3,true):convolution(0;1;0,1,false)"),
            [.convolution([0.25, 0.5, 0.25], columns: 3), .convolution([0, 1, 0], columns: 1)])
        let focal = try DWThumborURL(
            target: "/unsafe/9x9/filters:focal(10x10:30x20):focal(0x0:0x9)/a.com/b.png",
            settings: unsafe)
        XCTAssertEqual(
            focal.url.options.transform.focalPoint, DWFocalPoint(x: 20, y: 15), "an empty rectangle is ignored")
        XCTAssertThrowsError(
            try DWThumborURL(target: "/unsafe/1x1:5x5/9x9/filters:focal(1x1:3x3)/a.com/b", settings: unsafe))
        XCTAssertEqual(
            try DWThumborFilter.list("sharpen(2, 1.5, true):noise(20):noise(5,7):autojpg():autojpg(0)"),
            [
                .sharpen(amount: 2, radius: 1.5, luminanceOnly: true), .noise(amount: 20, seed: 0),
                .noise(amount: 5, seed: 7), .autoJPG(true), .autoJPG(false)
            ])
        XCTAssertEqual(
            try DWThumborFilter.list("curve([(0,0),(128,100),(255,255),], [(0,5)] ,[(0,0),(255,200)],[(9,9)])"),
            [.curve(all: [0, 0, 128, 100, 255, 255], red: [0, 5], green: [0, 0, 255, 200], blue: [9, 9])])
        XCTAssertEqual(try DWThumborFilter.list("extract_focal()"), [.extractFocal])
        XCTAssertEqual(
            try DWThumborFilter.list("colorize(10,200,0,00ff00)"),
            [.colorize(10, 100, 0, DWColor(red: 0, green: 255, blue: 0))])
        for bad in [
            "quality(-1)", "blur(0)", "blur(1,x)", "format(tiff)", "fill(auto,2)", "nope()", "grayscale(1)",
            "fill(red,maybe)", "quality", "rgb(1,2)",
            "round_corner(a,1,2,3)", "round_corner(5|,1,2,3)",
            "convolution(1;2,2)", "convolution(1;x;1,3)", "colorize(1,2,3,red)",
            "focal(1x2)", "focal(1x2:3x4:5x6)", "sharpen(1,2)", "sharpen(x,1,true)", "sharpen(1,1,yes)",
            "noise(-5)", "noise(1,2,3)", "noise(3000000000)", "autojpg(maybe)", "extract_focal(1)",
            "curve([(0,0)],[(0,0)],[(0,0)])", "curve([],[(0,0)],[(0,0)],[(0,0)])",
            "curve([(0,0),(0,5)],[(0,0)],[(0,0)],[(0,0)])", "curve([(0,0)],[(0,256)],[(0,0)],[(0,0)])",
            "curve([(0,0)(9,9)],[(0,0)],[(0,0)],[(0,0)])", "curve([(0, 0)],[(0,0)],[(0,0)],[(0,0)])"
        ] {
            XCTAssertThrowsError(try DWThumborFilter.list(bad), bad) { error in
                let name = String(bad.prefix { $0 != "(" })
                XCTAssertTrue("\(error)".contains(name), "\(bad): \(error)")
            }
        }
    }
}
