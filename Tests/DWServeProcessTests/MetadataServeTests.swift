// imgproxy's metadata options over HTTP: strip_metadata/sm, keep_copyright/kcr, strip_color_profile/scp. Sources made
// by Pillow (the reference writer), outputs read back with `vipsheader -a` (libvips-tools).
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class MetadataServeTests: ServeTestCase {
    func testExifCopyrightAndArtistKeptGPSStrippedByDefault() throws {
        origin.setRoute(
            "/exif.jpg",
            .ok(
                try pillowImage(
                    """
                    exif = Image.Exif(); exif[0x8298] = 'ACME-COPYRIGHT'; exif[0x013B] = 'JANE-ARTIST'; exif[0x010F] = 'CAM-MAKE'
                    exif[0x8825] = {1: 'N', 2: (48.0, 51.0, 24.0), 3: 'E', 4: (2.0, 21.0, 3.0)}
                    im.save(out, 'JPEG', exif=exif.tobytes())
                    """)))
        let server = try serve()
        let source = origin.url("/exif.jpg")
        // (options, tags expected, tags absent)
        let cases: [(String, [String], [String])] = [
            ("", ["ACME-COPYRIGHT", "JANE-ARTIST"], ["GPSLatitude", "CAM-MAKE"]),
            ("w:20", ["ACME-COPYRIGHT", "JANE-ARTIST"], ["GPSLatitude", "CAM-MAKE"]),
            ("f:png", ["ACME-COPYRIGHT", "JANE-ARTIST"], ["GPSLatitude", "CAM-MAKE"]),
            ("kcr:0", [], ["ACME-COPYRIGHT", "JANE-ARTIST", "GPSLatitude", "CAM-MAKE", "exif-"]),
            ("keep_copyright:0/w:20", [], ["ACME-COPYRIGHT", "JANE-ARTIST", "GPSLatitude", "exif-"]),
            ("sm:0", ["ACME-COPYRIGHT", "JANE-ARTIST", "GPSLatitude", "CAM-MAKE"], []),
            ("strip_metadata:0/w:20", ["ACME-COPYRIGHT", "GPSLatitude", "CAM-MAKE"], [])
        ]
        for (options, present, absent) in cases {
            let response = try server.get(ProxyPath.plain(source, options: options))
            XCTAssertEqual(response.status, 200, "\(options): \(response.text)")
            let header = try VipsHeader.all(response.body)
            for tag in present { XCTAssertTrue(header.contains(tag), "\(options): \(tag) kept\n\(header)") }
            for tag in absent { XCTAssertFalse(header.contains(tag), "\(options): \(tag) stripped\n\(header)") }
        }
    }

    /// A HEIC's EXIF, kept by `sm:0`, arrives whole. libvips 8.14's HEIF loader left the block pointing into memory
    /// it had freed, and the saver copied whatever was there by then (AddressSanitizer in fuzz/url-fuzzer); the
    /// decoder now gives every HEIF blob a copy of its own. The HEIC is Tests/…/Fixtures/q.heic (`vips copy`).
    func testHEICExifKeptWholeBySm0() throws {
        let heic = SourceTree.processingFixtures.appendingPathComponent("q.heic")
        origin.setRoute("/q.heic", .ok(try Data(contentsOf: heic)))
        let server = try serve()
        for options in ["sm:0/f:jpg", "sm:0/f:png", "sm:0/rs:fit:32:32/f:webp"] {
            let response = try server.get(ProxyPath.plain(origin.url("/q.heic"), options: options))
            XCTAssertEqual(response.status, 200, "\(options): \(response.text)")
            let header = try VipsHeader.all(response.body)
            for tag in [
                "exif-ifd0-XResolution: 71983/1000", "exif-ifd2-ExifVersion: Exif Version 2.1",
                "exif-ifd2-PixelXDimension"
            ] {
                XCTAssertTrue(header.contains(tag), "\(options): \(tag)\n\(header)")
            }
        }
    }

    /// 2400 × 2400 RGB is over the encoder's 16 MiB in-memory limit, so the plan's canvas is streamed through its
    /// steps rather than materialised; the policy of `sm:0`/`scp:0` must still reach the encode.
    func testPoliciesSurviveAStreamedCanvas() throws {
        origin.setRoute(
            "/big.jpg",
            .ok(
                try pillowImage(
                    """
                    im = im.resize((2400, 2400)); exif = Image.Exif(); exif[0x010F] = 'CAM-MAKE'
                    p = ImageCms.ImageCmsProfile(ImageCms.createProfile('sRGB')).tobytes()
                    im.save(out, 'JPEG', exif=exif.tobytes(), icc_profile=p)
                    """)))
        let server = try serve()
        let response = try server.get(ProxyPath.plain(origin.url("/big.jpg"), options: "sm:0/scp:0/w:2300/q:70"))
        XCTAssertEqual(response.status, 200, response.text)
        let header = try VipsHeader.all(response.body)
        XCTAssertTrue(header.contains("2300x2300"), header)
        XCTAssertTrue(header.contains("CAM-MAKE"), "sm:0 after a streaming step\n\(header)")
        XCTAssertTrue(header.contains("icc-profile-data"), "scp:0 after a streaming step\n\(header)")
    }

    func testColorProfileConvertedByDefaultKeptWithScp0() throws {
        let save = "p = ImageCms.ImageCmsProfile(ImageCms.createProfile('sRGB')).tobytes()\n"
        origin.setRoute("/icc.jpg", .ok(try pillowImage(save + "im.save(out, 'JPEG', icc_profile=p)")))
        origin.setRoute("/icc.png", .ok(try pillowImage(save + "im.save(out, 'PNG', icc_profile=p)")))
        origin.setRoute("/icc.webp", .ok(try pillowImage(save + "im.save(out, 'WEBP', icc_profile=p)")))
        let server = try serve()
        for name in ["/icc.jpg", "/icc.png", "/icc.webp"] {
            let source = origin.url(name)
            for (options, kept) in [
                ("", false), ("w:20", false), ("scp:0", true), ("strip_color_profile:0/w:20", true),
                ("scp:0/f:webp", true), ("scp:0/w:20/f:webp", true), ("f:webp", false),
                ("scp:0/f:avif", true), ("f:avif", false), ("f:png", false)
            ] {
                let response = try server.get(ProxyPath.plain(source, options: options))
                XCTAssertEqual(response.status, 200, "\(name) \(options): \(response.text)")
                let header = try VipsHeader.all(response.body)
                XCTAssertEqual(header.contains("icc-profile-data"), kept, "\(name) \(options)\n\(header)")
                if kept && !options.contains("avif") {  // and Pillow, the other reader (no AVIF here), finds it too
                    let length = try pillowICCLength(response.body)
                    XCTAssertGreaterThan(length, 0, "\(name) \(options): Pillow reads the profile")
                }
            }
        }
    }

    /// The length of the ICC profile Pillow reads from `data` (0: none).
    private func pillowICCLength(_ data: Data) throws -> Int {
        let text = try python(
            """
            import base64, io
            from PIL import Image
            im = Image.open(io.BytesIO(base64.b64decode('\(data.base64EncodedString())')))
            print(len(im.info.get('icc_profile') or b''))
            """)
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// A 40 × 30 RGB image written by Pillow: `script` has `im` (the image), `out` (a BytesIO) and ImageCms.
    private func pillowImage(_ script: String) throws -> Data {
        let text = try python(
            """
            import base64, io
            from PIL import Image, ImageCms
            im = Image.new('RGB', (40, 30), (200, 100, 50)); out = io.BytesIO()
            \(script)
            print(base64.b64encode(out.getvalue()).decode())
            """)
        guard let data = Data(base64Encoded: text) else { throw ServeStartFailure("Pillow wrote no image: \(text)") }
        return data
    }
}
