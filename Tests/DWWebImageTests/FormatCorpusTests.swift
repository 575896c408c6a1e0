// The format corpus (Fixtures/formats: real-world files and deliberately broken ones, made by make-corpus.py there):
// what the sniffer says about each file is checked against an independent reader run by the test — libvips
// (`vipsheader`: libjpeg, libtiff, libnsgif — NetSurf's browser GIF decoder) or Pillow — and a file is refused
// exactly when that reader refuses it, with a message that says why.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class FormatCorpusTests: XCTestCase {
    static let directory = SourceTree.formatCorpus

    /// Which reader is the reference for a file: the decoder browsers or libvips use for that format.
    enum Reader: String { case vips, pillow }

    enum Verdict {
        /// Accepted with this format, and the reader's width, height (and for GIF, frame count).
        case accept(DWImageFormat)
        /// Accepted, the reader's width and height, and this many frames: DWImage counts complete frames only.
        case acceptFrames(DWImageFormat, Int)
        /// Refused (10000) with a message containing this text; the reader refuses it too.
        case refuse(String)
    }

    static let cases: [(file: String, reader: Reader, verdict: Verdict)] = [
        // Real-world files (README.md in the folder says where each comes from).
        ("real-idle.ico", .pillow, .accept(.ico)),  // 16, 32, 48 BMP entries and a 256 PNG entry
        ("real-python.bmp", .pillow, .accept(.bmp)),
        ("real-python.gif", .vips, .accept(.gif)),
        ("real-idle-48.gif", .vips, .accept(.gif)),
        ("real-tk.gif", .vips, .accept(.gif)),
        ("real-pybanner-gif87a.gif", .vips, .accept(.gif)),
        ("real-python.jpg", .vips, .accept(.jpeg)),
        ("real-python.png", .vips, .accept(.png)),
        ("real-python.tiff", .vips, .accept(.tiff)),
        ("real-python.webp", .vips, .accept(.webp)),
        // ICO and CUR: the largest entry; a PNG entry by its own header (300 × 280 where the directory says 256).
        ("ico-png-entries.ico", .pillow, .accept(.ico)),
        ("ico-bmp-entries.ico", .pillow, .accept(.ico)),
        ("ico-png-300.ico", .pillow, .accept(.ico)),
        ("cur-bmp.cur", .pillow, .accept(.ico)),
        // A PNG entry whose directory disagrees with it (size, byte count short or past the end): the PNG's own.
        ("ico-png-count-short.ico", .pillow, .accept(.ico)),
        ("ico-png-count-past-end.ico", .pillow, .accept(.ico)),
        ("ico-broken-directory.ico", .pillow, .refuse("ICO directory of 3 entries ends at byte 54")),
        ("ico-broken-empty.ico", .pillow, .refuse("ICO directory has no entries")),
        ("ico-broken-entry-outside.ico", .pillow, .refuse("is not inside the 5430-byte file")),
        // BigTIFF, both byte orders (libtiff is the reference; Pillow 13 does not read the big-endian one).
        ("bigtiff-le.tif", .vips, .accept(.tiff)),
        ("bigtiff-le.tif", .pillow, .accept(.tiff)),
        ("bigtiff-be.tif", .vips, .accept(.tiff)),
        ("bigtiff-broken-ifd-outside.tif", .vips, .refuse("BigTIFF first IFD offset 1099511627776 is outside")),
        // JPEG: junk libjpeg skips between markers is accepted; junk before SOI and a missing frame are not.
        ("jpeg-junk-after-soi.jpg", .vips, .accept(.jpeg)),
        ("jpeg-junk-inside-header.jpg", .vips, .accept(.jpeg)),
        ("jpeg-junk-inside-header.jpg", .pillow, .accept(.jpeg)),
        ("jpeg-broken-junk-before-soi.jpg", .vips, .refuse("unknown format")),
        ("jpeg-broken-no-frame.jpg", .vips, .refuse("JPEG ends (EOI at byte 20) before a frame header")),
        ("jpeg-broken-truncated-header.jpg", .vips, .refuse("frame header (SOF) at byte 158 is truncated")),
        // GIF: a damaged or missing tail after complete frames keeps those frames (as libnsgif and browsers).
        ("gif-tail-garbage.gif", .vips, .accept(.gif)),
        ("gif-tail-missing.gif", .vips, .accept(.gif)),
        ("gif-tail-truncated-extension.gif", .vips, .accept(.gif)),
        ("gif-tail-truncated-frame.gif", .vips, .accept(.gif)),
        ("gif-tail-damaged-descriptor.gif", .vips, .acceptFrames(.gif, 3)),  // libnsgif: 4 (counts the begun frame)
        ("gif-tail-bad-code-size.gif", .vips, .accept(.gif)),
        ("gif-tail-truncated-colour-table.gif", .vips, .accept(.gif)),
        ("gif-broken-no-frame.gif", .vips, .refuse("GIF has no complete frame")),
        // A later frame cut short counts (libnsgif and Pillow count it; its rows that arrived are shown).
        ("gif-later-frame-cut.gif", .vips, .accept(.gif)),
        ("gif-later-frame-cut.gif", .pillow, .accept(.gif)),
        // TIFFs libvips' tiffload refuses to decode (libtiff's RGBA reader decodes them), and WebP strips.
        ("tiff-tiled-separate.tif", .vips, .accept(.tiff)),
        ("tiff-tiled-separate.tif", .pillow, .accept(.tiff)),
        ("tiff-old-jpeg.tif", .pillow, .accept(.tiff)),
        ("tiff-webp.tif", .vips, .accept(.tiff)),
        ("tiff-webp-strip-cut.tif", .vips, .accept(.tiff))  // the header is whole; --verify fails it
    ]

    struct Facts: Equatable, CustomStringConvertible {
        var width: Int, height: Int, frames: Int
        var description: String { "\(width)×\(height), \(frames) frame(s)" }
    }

    func testSnifferAgreesWithReferenceReaders() throws {
        let pillowFiles = Set(Self.cases.filter { $0.reader == .pillow }.map(\.file))
        let pillow = try Self.pillowFacts(Array(pillowFiles).sorted())
        let vips = try Self.vipsFacts(Array(Set(Self.cases.filter { $0.reader == .vips }.map(\.file))).sorted())
        for (file, reader, verdict) in Self.cases {
            let data = try Data(contentsOf: Self.directory.appendingPathComponent(file))
            let reference: Facts?
            switch reader {
            case .pillow: reference = pillow[file] ?? nil
            case .vips: reference = vips[file] ?? nil
            }
            let ours = Result { () throws(DWWebImageError) -> DWImage in try DWImage(data: data) }
            switch (verdict, ours) {
            case (.accept(let format), .success(let image)), (.acceptFrames(let format, _), .success(let image)):
                XCTAssertEqual(image.format, format, file)
                let facts = Facts(width: image.pixelWidth, height: image.pixelHeight, frames: image.frameCount)
                var expected = reference
                if case .acceptFrames(_, let frames) = verdict { expected?.frames = frames }
                XCTAssertEqual(
                    facts, expected, "\(file): ours \(facts), \(reader) \(reference.map(\.description) ?? "refuses")")
            case (.accept, .failure(let error)), (.acceptFrames, .failure(let error)):
                XCTFail(
                    "\(file): refused (\(error.message)) but \(reader) reads \(reference.map(\.description) ?? "nothing")"
                )
            case (.refuse(let why), .failure(let error)):
                XCTAssertEqual(error.code, .notAnImage, file)
                XCTAssertTrue(error.message.contains(why), "\(file): \(error.message)")
                XCTAssertNil(reference, "\(file): refused, but \(reader) reads it")
            case (.refuse, .success(let image)):
                XCTFail(
                    "\(file): accepted as \(image.format) \(image.pixelWidth)×\(image.pixelHeight), expected a refusal")
            }
        }
    }

    /// Every fixture, cut short at every length up to 300 bytes and at a few later points, is refused or read,
    /// never a trap (the corpus as a seed for the bounds checks).
    func testCorpusPrefixesNeverTrap() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter {
            !$0.hasSuffix(".py") && !$0.hasSuffix(".md")
        }
        XCTAssertGreaterThan(files.count, 20)
        for file in files {
            let data = try Data(contentsOf: Self.directory.appendingPathComponent(file))
            let cuts = Array(0..<min(data.count, 300)) + stride(from: 300, to: data.count, by: max(1, data.count / 50))
            for cut in cuts { _ = try? DWImage(data: data.prefix(cut)) }
        }
    }

    // MARK: - Reference readers

    /// One `vipsheader` run over `files` (libvips' own loaders: libjpeg, libtiff, libnsgif, libpng, libwebp; a
    /// line "PATH: WxH …" for each file it reads), then `-f n-pages` for each GIF it read.
    static func vipsFacts(_ files: [String]) throws -> [String: Facts?] {
        let paths = files.map { directory.appendingPathComponent($0).path }
        let (_, out) = try run("vipsheader", paths)
        var facts: [String: Facts?] = Dictionary(uniqueKeysWithValues: files.map { ($0, nil) })
        for line in out.split(separator: "\n") {
            guard let colon = line.range(of: ": ") else { continue }
            let file = URL(fileURLWithPath: String(line[..<colon.lowerBound])).lastPathComponent
            let size =
                line[colon.upperBound...].split(separator: " ").first?.split(separator: "x").compactMap { Int($0) }
                ?? []
            guard facts.keys.contains(file), size.count == 2 else { continue }
            var frames = 1
            if file.hasSuffix(".gif") {
                let (_, pages) = try run("vipsheader", ["-f", "n-pages", directory.appendingPathComponent(file).path])
                frames = Int(pages.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 1
            }
            facts[file] = Facts(width: size[0], height: size[1], frames: frames)
        }
        return facts
    }

    /// One python3 run of Pillow over `files`: open, load (PNG-in-ICO sizes are known only then), size, n_frames.
    static func pillowFacts(_ files: [String]) throws -> [String: Facts?] {
        let script = """
            import json, os, sys, warnings
            warnings.simplefilter("ignore")
            from PIL import Image
            out = {}
            for path in sys.argv[1:]:
                try:
                    with Image.open(path) as im:
                        im.load()
                        out[os.path.basename(path)] = [im.size[0], im.size[1], getattr(im, "n_frames", 1)]
                except Exception:
                    out[os.path.basename(path)] = None
            print(json.dumps(out))
            """
        let out = try Python.system.data(["-c", script] + files.map { directory.appendingPathComponent($0).path })
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: out) as? [String: Any], "Pillow's facts")
        var facts: [String: Facts?] = [:]
        for (file, value) in json {
            if let v = value as? [Int], v.count == 3 {
                facts[file] = Facts(width: v[0], height: v[1], frames: v[2])
            } else {
                facts[file] = .some(nil)
            }
        }
        return facts
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> (Int32, String) {
        let run = try ProcessRun.run(tool, arguments, environment: ["VIPS_WARNING": "0"])
        if run.status == 127 { throw MissingPrerequisite("\(tool) is not installed (scripts/setup.sh installs it)") }
        return (run.status, run.output)
    }
}
