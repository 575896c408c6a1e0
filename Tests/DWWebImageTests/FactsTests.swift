// manager.facts(withURL:): format, size, frames and orientation from the first 64 KiB — against nginx (a 20 MB
// JPEG, Range honoured, bytes counted in its access log), a server that ignores Range, and the cache.
import DWLocking
import DWTestPeers
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class FactsTests: XCTestCase {
    func testTwentyMegabyteImageFromNginxReadsUnder64KiB() async throws {
        let ca = try peer { try TestCA() }
        let nginx = try peer { try NginxTLS(ca: ca) }
        defer { nginx.stop() }
        let jpeg = try pillowNoiseJPEG(width: 3000, height: 2600, orientation: 6)
        XCTAssertGreaterThan(jpeg.count, 20_000_000)
        try nginx.put("big.jpg", jpeg)
        let h = try Harness { $0.tls.caFile = ca.caFile }
        defer { h.close() }
        let facts = try await h.manager.facts(withURL: nginx.baseURL + "/big.jpg")
        XCTAssertEqual(facts.format, .jpeg)
        XCTAssertEqual([facts.pixelWidth, facts.pixelHeight], [3000, 2600])
        XCTAssertEqual(facts.frameCount, 1)
        XCTAssertEqual(facts.orientation, 6)
        XCTAssertEqual(facts.byteCount, Int64(jpeg.count), "the total from Content-Range")
        XCTAssertFalse(facts.isComplete)
        XCTAssertLessThanOrEqual(facts.bytesRead, DWWebImageManager.factsHeadSize)
        // nginx's own count of body bytes sent ($body_bytes_sent, the last field).
        XCTAssertTrue(eventually { nginx.accessLog.contains("/big.jpg") })
        let line = try XCTUnwrap(nginx.accessLog.split(separator: "\n").last { $0.contains("/big.jpg") })
        XCTAssertTrue(line.contains("\" 206 "), String(line))
        let sent = try XCTUnwrap(Int(line.split(separator: " ").last ?? ""))
        XCTAssertLessThanOrEqual(sent, 64 * 1024, "the 64 KiB asked for, of 20 MB")
        XCTAssertNil(h.cache.memoryImage(forKey: nginx.baseURL + "/big.jpg"), "nothing kept")
    }

    func testAServerThatIgnoresRangeIsCutOffAtTheHead() async throws {
        let h = try Harness()
        defer { h.close() }
        let big = SampleImages.gif(width: 4, height: 4, frames: 2) + Data(count: 4_000_000)  // trailing junk
        h.server.setRoute("/plain.gif", .ok(big))
        let facts = try await h.manager.facts(withURL: h.server.url("/plain.gif"))
        XCTAssertEqual(facts.format, .gif)
        XCTAssertEqual([facts.pixelWidth, facts.pixelHeight], [4, 4])
        XCTAssertEqual(facts.frameCount, 2)
        XCTAssertLessThanOrEqual(facts.bytesRead, DWWebImageManager.factsHeadSize)
        XCTAssertEqual(h.server.requestLog.first?.header("Range"), "bytes=0-65535")
        h.server.setRoute("/text", .ok(Data("hello".utf8)))
        do {
            _ = try await h.manager.facts(withURL: h.server.url("/text"))
            XCTFail("not an image")
        } catch {
            XCTAssertEqual(error.code, .notAnImage)
        }
        h.server.setRoute("/gone", .status(404))
        do {
            _ = try await h.manager.facts(withURL: h.server.url("/gone"))
            XCTFail("404")
        } catch {
            XCTAssertEqual(error.httpStatus, 404)
        }
    }

    func testCachedImagesAnswerWithoutARequest() async throws {
        let h = try Harness()
        defer { h.close() }
        let png = SampleImages.png(width: 9, height: 4)
        h.server.setRoute("/c.png", .ok(png))
        _ = try h.fetch(h.server.url("/c.png")).get()
        let facts = try await h.manager.facts(withURL: h.server.url("/c.png"))
        XCTAssertEqual([facts.pixelWidth, facts.pixelHeight], [9, 4])
        XCTAssertTrue(facts.isComplete)
        XCTAssertEqual(h.server.requestCount(path: "/c.png"), 1)
    }

    /// PNG's eXIf, WebP's EXIF, a TIFF's IFD0 and JPEG XL's own header field, each from files Pillow and cjxl wrote,
    /// over HTTP; a file declaring none says 1, and no cut of the bytes crashes or invents a value.
    func testOrientationOfEveryFormatThatDeclaresOne() async throws {
        let h = try Harness()
        defer { h.close() }
        let files = try pillowFiles(orientation: 6, formats: ["png", "webp", "tiff", "jpeg"])
        let plain = try pillowFiles(orientation: nil, formats: ["png"])
        let boxed = try LibJXLTools.cjxl(files["png"]!, container: true)  // EXIF's orientation, moved into the header
        let cases: [(String, Data, DWImageFormat, Int)] = [
            ("o.png", files["png"]!, .png, 6), ("o.webp", files["webp"]!, .webp, 6),
            ("o.tif", files["tiff"]!, .tiff, 6), ("o.jpg", files["jpeg"]!, .jpeg, 6),
            ("boxed.jxl", boxed, .jxl, 6), ("bare.jxl", try codestream(of: boxed), .jxl, 6),
            ("plain.png", plain["png"]!, .png, 1),
            ("plain.jxl", try LibJXLTools.cjxl(plain["png"]!, container: false), .jxl, 1)
        ]
        for (name, data, format, orientation) in cases {
            h.server.setRoute("/" + name, .ok(data))
            let facts = try await h.manager.facts(withURL: h.server.url("/" + name))
            XCTAssertEqual(facts.format, format, name)
            XCTAssertEqual([facts.pixelWidth, facts.pixelHeight], [40, 30], name)
            XCTAssertEqual(facts.orientation, orientation, name)
            for cut in 0..<data.count {
                let value = data.prefix(cut).withUnsafeBytes { ExifOrientation.read($0, format: format) }
                XCTAssertTrue(
                    value == nil || value == orientation, "\(name) cut at \(cut): \(String(describing: value))")
            }
        }
    }

    /// 40 × 30 images Pillow writes in `formats` (its format names), with EXIF orientation `orientation` (none: nil).
    private func pillowFiles(orientation: Int?, formats: [String]) throws -> [String: Data] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dwfacts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = """
            import sys
            from PIL import Image
            o, out = int(sys.argv[1]), sys.argv[2]
            im = Image.new("RGB", (40, 30), (200, 10, 10))
            exif = Image.Exif()
            if o:
                exif[0x0112] = o
            for fmt in sys.argv[3:]:
                im.save(f"{out}/{fmt}", format=fmt.upper(), **({"exif": exif.tobytes()} if o else {}))
            """
        _ = try Python.system.run(["-c", script, String(orientation ?? 0), dir.path] + formats)  // Pillow
        var files: [String: Data] = [:]
        for format in formats { files[format] = try Data(contentsOf: dir.appendingPathComponent(format)) }
        return files
    }

    /// The codestream of a JPEG XL container's `jxlc` box: a bare JPEG XL file.
    private func codestream(of container: Data) throws -> Data {
        let bytes = [UInt8](container)
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == "jxlc" {
                return Data(bytes[offset + 8..<(size == 0 ? bytes.count : offset + size)])
            }
            guard size >= 8 else { break }
            offset += size
        }
        throw MissingPrerequisite("cjxl wrote no jxlc box")
    }

    /// A noisy JPEG (hard to compress, so large) with an EXIF orientation, made by Pillow.
    private func pillowNoiseJPEG(width: Int, height: Int, orientation: Int) throws -> Data {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("dwfacts-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: out) }
        let script = """
            import os, sys
            from PIL import Image
            w, h, o, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
            im = Image.frombytes("RGB", (w, h), os.urandom(w * h * 3))
            exif = Image.Exif()
            exif[0x0112] = o
            im.save(path, quality=100, subsampling=0, exif=exif.tobytes())
            """
        _ = try Python.system.run(["-c", script, "\(width)", "\(height)", "\(orientation)", out.path])  // Pillow
        return try Data(contentsOf: out)
    }
}
