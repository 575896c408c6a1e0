// The format corpus (Tests/DWWebImageTests/Fixtures/formats) against Pillow, file by file: what the sniffer reads
// (format, size, frames) and what `--verify` (`verifyDecodes`) passes, against what Pillow opens and what it fully
// decodes (every frame loaded). The agreement figure is printed; every difference must be one named below.
import DWTestSupport
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class CorpusAgreementTests: XCTestCase {
    static let directory = SourceTree.formatCorpus

    /// Files on which we differ from Pillow on purpose, and why.
    static let intendedDifferences: [String: String] = [
        "bigtiff-be.tif": "Pillow 13 does not read big-endian BigTIFF; libtiff (libvips) does",
        "jpeg-junk-after-soi.jpg": "libjpeg (libvips, browsers) skips junk between SOI and the next marker; Pillow "
            + "refuses it",
        "gif-tail-garbage.gif": "--verify fails a GIF whose tail after complete frames is damaged (a download cut "
            + "between frames looks the same); Pillow decodes the frames",
        "gif-tail-missing.gif": "--verify fails a GIF without its trailer (a download cut between frames looks the "
            + "same); Pillow decodes the frames",
        "gif-tail-bad-code-size.gif": "giflib and libnsgif stop before a frame with LZW code size 12 (3 frames); "
            + "Pillow counts it (4) and fails to load it",
        "gif-tail-damaged-descriptor.gif": "the 65535×65535 rect the file ends in is over the 64 MP frame limit, so "
            + "the 3 complete frames are kept (browsers show those); Pillow and libnsgif count it (4)",
        "tiff-webp.tif": "Pillow's libtiff has no WebP codec; Debian's (libvips) decodes every strip"
    ]

    struct Verdict: Equatable, CustomStringConvertible {
        /// Width, height, frames; nil: refused.
        var facts: [Int]?
        /// Every pixel of every frame decodes.
        var full: Bool

        /// The same verdict on full decoding, and the same facts where both read the file. (A file whose header
        /// the sniffer reads, and whose damaged tail browsers live with, but which --verify fails, agrees with
        /// Pillow refusing it.)
        func agrees(with other: Verdict) -> Bool {
            full == other.full && (facts == other.facts || facts == nil || other.facts == nil)
        }
        var description: String {
            (facts.map { "\($0[0])×\($0[1]), \($0[2]) frame(s)" } ?? "refused")
                + (full ? ", decodes fully" : ", does not fully decode")
        }
    }

    func testSnifferAndVerifyAgreeWithPillow() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { !$0.hasSuffix(".py") && !$0.hasSuffix(".md") }.sorted()
        XCTAssertGreaterThan(files.count, 30)
        let (pillow, version) = try Self.pillowVerdicts(files)
        var agree = 0, intended: [String] = [], both = 0, bothAgree = 0
        for file in files {
            let data = try Data(contentsOf: Self.directory.appendingPathComponent(file))
            let ours = Self.ourVerdict(data)
            guard let theirs = pillow[file] else { return XCTFail("\(file): no answer from Pillow") }
            if ours.facts != nil && theirs.facts != nil {
                both += 1
                if ours.agrees(with: theirs) { bothAgree += 1 }
            }
            // Agreement: the same facts where both read, and --verify passes exactly what Pillow fully decodes.
            // A file --verify passes must decode fully, whatever Pillow says (the test below, never excused).
            if ours.agrees(with: theirs) {
                agree += 1
            } else if let why = Self.intendedDifferences[file] {
                intended.append("\(file): \(why)")
            } else {
                XCTFail("\(file): ours \(ours), Pillow \(theirs)")
            }
            if ours.agrees(with: theirs) && Self.intendedDifferences[file] != nil {
                XCTFail("\(file) agrees with Pillow now: drop it from intendedDifferences")
            }
        }
        func percent(_ part: Int, _ whole: Int) -> String {
            String(format: "%.1f %%", Double(part) / Double(max(1, whole)) * 100)
        }
        print(
            """
            Format corpus against Pillow \(version): \(agree) of \(files.count) files agree (\(percent(agree, files.count))); \
            of the \(both) both read, \(bothAgree) agree (\(percent(bothAgree, both))); \(intended.count) intended \
            difference(s):
            """ + intended.map { "\n  - \($0)" }.joined())
        XCTAssertEqual(agree + intended.count, files.count)
    }

    /// `--verify` passes no file that cannot be fully decoded: every frame of every file it passes is decoded here
    /// (GIF frames complete, the first page of anything else to its last pixel by a second decoder: `bitmap()`).
    func testVerifyPassesOnlyFilesThatFullyDecode() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { !$0.hasSuffix(".py") && !$0.hasSuffix(".md") }
        for file in files {
            let data = try Data(contentsOf: Self.directory.appendingPathComponent(file))
            guard let image = try? DWImage(data: data), (try? image.verifyDecodes()) != nil else { continue }
            XCTAssertNoThrow(try image.bitmap(), file)
            if let animation = image.animatedImage(bufferCount: 0) {
                animation.forEachFrame { frame in
                    XCTAssertTrue(frame.isComplete, "\(file): frame \(frame.index) passed --verify but is cut")
                    return true
                }
            }
        }
    }

    static func ourVerdict(_ data: Data) -> Verdict {
        guard let image = try? DWImage(data: data) else { return Verdict(facts: nil, full: false) }
        let full = (try? image.verifyDecodes()) != nil
        return Verdict(facts: [image.pixelWidth, image.pixelHeight, image.frameCount], full: full)
    }

    /// One python3 run: open and load (facts), then load every frame (fully decodes).
    static func pillowVerdicts(_ files: [String]) throws -> (verdicts: [String: Verdict], version: String) {
        let script = """
            import json, os, sys, warnings
            warnings.simplefilter("ignore")
            import PIL
            from PIL import Image
            out = {"": PIL.__version__}
            for path in sys.argv[1:]:
                facts, full = None, False
                try:
                    with Image.open(path) as im:
                        im.load()
                        n = getattr(im, "n_frames", 1)
                        facts = [im.size[0], im.size[1], n]
                        for i in range(n):
                            im.seek(i)
                            im.load()
                        full = True
                except Exception:
                    pass
                out[os.path.basename(path)] = [facts, full]
            print(json.dumps(out))
            """
        // stderr is read only on failure: libtiff's "WEBP compression support is not configured"
        let paths = files.map { directory.appendingPathComponent($0).path }
        let output = try Python.system.data(["-c", script] + paths)  // Pillow (scripts/setup.sh installs it)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: output) as? [String: Any], "Pillow's verdicts")
        var verdicts: [String: Verdict] = [:]
        for (file, value) in json where !file.isEmpty {
            guard let pair = value as? [Any], pair.count == 2 else { continue }
            verdicts[file] = Verdict(facts: pair[0] as? [Int], full: pair[1] as? Bool ?? false)
        }
        return (verdicts, json[""] as? String ?? "?")
    }
}
