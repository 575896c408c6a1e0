// Files of the format corpus (Tests/DWWebImageTests/Fixtures/formats, made by tools: tiffcp, Pillow) that libvips
// alone does not decode as Pillow and browsers do: TIFFs its tiffload refuses (libtiff's RGBA reader decodes them, as
// Pillow does), a GIF whose later frame is cut short (libnsgif and browsers show the rows that arrived), and broken
// files --verify must fail.
import DWTestSupport
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class RealWorldFilesTests: XCTestCase {
    static let directory = CorpusAgreementTests.directory

    private func image(_ file: String) throws -> DWImage {
        try DWImage(data: Data(contentsOf: Self.directory.appendingPathComponent(file)))
    }

    func testTIFFsLibvipsRefusesDecodeAsPillowDecodesThem() throws {
        // Tiled with separate planes (libvips: "tiled separate planes not supported" when reading pixels) and
        // old-style JPEG (libvips: "subsampled images not supported" when opening).
        for file in ["tiff-tiled-separate.tif", "tiff-old-jpeg.tif"] {
            let image = try image(file)
            XCTAssertNoThrow(try image.verifyDecodes(), file)
            let bitmap = try image.bitmap()
            let pillow = try Self.pillowRGBA(file)
            XCTAssertEqual([bitmap.width, bitmap.height], [pillow.width, pillow.height], file)
            XCTAssertEqual([UInt8](bitmap.pixels), pillow.pixels, "\(file): our pixels against Pillow's")
            // Processors and the shrink-on-load path work on the decoded pixels too.
            let resized = try DWImage(data: try DWResize(width: 20, height: 20).process(image).data)
            XCTAssertEqual([resized.pixelWidth, resized.pixelHeight], [20, 12], file)
        }
    }

    func testTIFFNeitherReaderDecodesIsRefusedWithBothReasons() throws {
        // 12-bit samples: libvips and libtiff's RGBA reader (and Pillow) all refuse them.
        let image = try image("tiff-12-bit.tif")
        XCTAssertThrowsError(try image.verifyDecodes()) { error in
            let message = (error as? DWWebImageError)?.message ?? "\(error)"
            XCTAssertEqual((error as? DWWebImageError)?.code, .notAnImage)
            XCTAssertTrue(message.contains("not a whole number of bytes"), message)
            XCTAssertTrue(message.contains("12-bit samples"), message)
        }
        XCTAssertThrowsError(try image.bitmap())
    }

    func testVerifyFailsATIFFWhoseWebPStripIsCut() throws {
        XCTAssertNoThrow(try image("tiff-webp.tif").verifyDecodes())
        XCTAssertThrowsError(try image("tiff-webp-strip-cut.tif").verifyDecodes()) { error in
            XCTAssertTrue((error as? DWWebImageError)?.message.contains("WebP") ?? false, "\(error)")
        }
    }

    func testICOWhosePNGEntryDisagreesWithItsDirectoryDecodesThePNG() throws {
        // The directory says 32 × 32 and a byte count 30 short of the PNG's end (or 500 past the file's end);
        // Pillow reads the PNG from the entry's offset, 64 × 64.
        for file in ["ico-png-count-short.ico", "ico-png-count-past-end.ico", "ico-png-300.ico"] {
            let image = try image(file)
            XCTAssertNoThrow(try image.verifyDecodes(), file)
            let bitmap = try image.bitmap()
            let pillow = try Self.pillowRGBA(file)
            XCTAssertEqual([bitmap.width, bitmap.height], [pillow.width, pillow.height], file)
            XCTAssertEqual([UInt8](bitmap.pixels), pillow.pixels, "\(file): our pixels against Pillow's")
        }
        // --verify computes a PNG entry's pixels and holds it to its chunk layout: one cut inside its IDAT fails.
        let whole = try Data(contentsOf: Self.directory.appendingPathComponent("ico-png-300.ico"))
        let cut = try DWImage(data: whole.prefix(whole.count - 40))
        XCTAssertThrowsError(try cut.verifyDecodes())
    }

    func testVerifyDecodesEveryFrameOfAnAPNG() throws {
        // Every chunk whole, the third frame's compressed data damaged: libvips decodes the first frame only.
        let image = try image("apng-later-frame-corrupt.png")
        XCTAssertEqual(image.frameCount, 3)
        XCTAssertThrowsError(try image.verifyDecodes()) { error in
            XCTAssertTrue((error as? DWWebImageError)?.message.contains("frame 2") ?? false, "\(error)")
        }
    }

    func testGIFWhoseLaterFrameIsCutShowsItsRowsAsLibnsgifDoes() throws {
        let image = try image("gif-later-frame-cut.gif")
        XCTAssertEqual(image.frameCount, 3)
        XCTAssertTrue(image.isPartial)
        let animation = try XCTUnwrap(image.animatedImage())
        XCTAssertTrue(animation.frame(at: 1).isComplete)
        let cut = animation.frame(at: 2)
        XCTAssertFalse(cut.isComplete)
        // The rows that arrived whole are frame 2's, those after the cut still show frame 1, as libnsgif (the
        // decoder of browsers' lineage that libvips uses) draws them. The one row the data ends in stays as it was
        // here (giflib decodes whole rows); libnsgif draws the pixels of it that arrived.
        let vips = try Self.vipsPage(2, of: "gif-later-frame-cut.gif")
        let previous = animation.frame(at: 1).pixels
        let rowBytes = cut.width * 4
        func row(_ pixels: [UInt8], _ y: Int) -> ArraySlice<UInt8> { pixels[y * rowBytes..<(y + 1) * rowBytes] }
        let drawn = (0..<cut.height).filter { row(cut.pixels, $0) != row(previous, $0) }
        XCTAssertEqual(drawn, Array(0..<drawn.count), "the rows that arrived, from the top")
        XCTAssertTrue((1..<cut.height).contains(drawn.count), "some rows arrived, not all: \(drawn.count)")
        let unlike = (0..<cut.height).filter { row(cut.pixels, $0) != row(vips, $0) }
        XCTAssertTrue(unlike.isEmpty || unlike == [drawn.count], "rows unlike libnsgif's: \(unlike)")
        // Processors keep all three frames; --verify fails it (it cannot be fully decoded).
        let processed = try DWImage(data: try DWResize(width: 24, height: 16).process(image).data)
        XCTAssertEqual(processed.frameCount, 3)
        XCTAssertThrowsError(try image.verifyDecodes()) { error in
            XCTAssertTrue((error as? DWWebImageError)?.message.contains("image data of frame 2") ?? false, "\(error)")
        }
    }

    // MARK: - Reference readers

    static func pillowRGBA(_ file: String) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let out = try Python.system.data([
            "-c",
            """
            import sys; from PIL import Image
            im = Image.open(sys.argv[1]).convert("RGBA")
            sys.stdout.buffer.write(b"%d %d\\n" % im.size + im.tobytes())
            """, directory.appendingPathComponent(file).path
        ])
        guard let newline = out.firstIndex(of: 10),
            case let size = String(decoding: out[..<newline], as: UTF8.self).split(separator: " ").compactMap({
                Int($0)
            }),
            size.count == 2
        else { throw CocoaError(.fileReadCorruptFile) }
        return (size[0], size[1], Array(out[(newline + 1)...]))
    }

    /// Page `page` of a GIF as libvips (libnsgif) composites it, RGBA (written as a PNG by `vips`, read back).
    static func vipsPage(_ page: Int, of file: String) throws -> [UInt8] {
        let png = FileManager.default.temporaryDirectory.appendingPathComponent("dwpage-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: png) }
        _ = try run(["vips", "copy", directory.appendingPathComponent(file).path + "[page=\(page)]", png.path])
        return [UInt8](try DWImage(data: Data(contentsOf: png)).bitmap().pixels)
    }

    static func run(_ arguments: [String]) throws -> Data {
        let run = try ProcessRun.run(arguments[0], Array(arguments.dropFirst()))
        guard run.status == 0 else {
            throw NSError(
                domain: "RealWorldFilesTests", code: Int(run.status),
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "\(arguments[0]) failed (scripts/setup.sh installs Pillow and libvips-tools)"
                ])
        }
        return run.stdout
    }
}
