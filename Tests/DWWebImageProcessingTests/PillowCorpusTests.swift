// Pillow's own test images (Tests/images of its PyPI source distribution, fetched by pip as a newcomer would and
// kept under the gitignored .corpus/) read by us and by the installed Pillow: for every file both read, the same
// format, width, height and frame count in at least 99.5 % of them; and no file Pillow cannot fully decode passes
// verifyDecodes() (dwfetch --verify) unless it is one named below with the reason.
import DWWebImage
import DWWebImageProcessing
import DWTestSupport
import Foundation
import XCTest

final class PillowCorpusTests: XCTestCase {
    static let packageRoot = SourceTree.root
    static let script = SourceTree.processingFixtures.appendingPathComponent("pillow_verdicts.py")

    /// The share of files both read on which we must agree with Pillow.
    static let agreementBar = 0.995

    /// Pillow's format names → ours (formats both know).
    static let formatNames: [String: DWImageFormat] = [
        "PNG": .png, "JPEG": .jpeg, "MPO": .jpeg, "GIF": .gif, "WEBP": .webp, "BMP": .bmp, "DIB": .bmp,
        "TIFF": .tiff, "AVIF": .avif, "HEIF": .heic, "ICO": .ico, "CUR": .ico, "JPEG XL": .jxl, "PPM": .pnm,
        "JPEG2000": .jp2, "FITS": .fits
    ]

    /// Files --verify passes that Pillow does not fully decode, and why that is right.
    static let verifiedThoughPillowFails: [String: String] = [
        "avif/hopper.heif":
            "an AV1 image in a HEIF (mif1) file: libheif decodes it; Pillow's AVIF plugin wants an avif brand",
        "bmp/g/rgb32bf.bmp": "32-bit bit fields (bmpsuite: good); Pillow supports only some bit-field layouts",
        "bmp/q/pal8oversizepal.bmp": "300 palette entries that fit in the file, the extra ignored (browsers show it)",
        "bmp/q/rgb16-231.bmp": "16-bit bit fields 2-3-1; browsers show it, Pillow does not read the layout",
        "bmp/q/rgb32-111110.bmp": "32-bit bit fields 11-11-10; browsers show it, Pillow does not read the layout",
        "bmp/q/rgba16-4444.bmp": "16-bit bit fields with alpha; browsers show it, Pillow does not read the layout",
        "bmp/q/rgba32abf.bmp": "BI_ALPHABITFIELDS (compression 6); browsers show it, Pillow does not read it",
        "decompression_bomb_extents.gif": "a frame rectangle far past the screen: giflib and browsers clip it to the "
            + "screen; Pillow refuses it as a decompression bomb",
        "invalid_header_length.jp2": "a resolution box (res ) whose sub-box runs past it: OpenJPEG skips the "
            + "resolution and decodes the whole codestream (test-card-lossless.jp2's pixels); Pillow refuses the header",
        "hopper_unknown_pixel_mode.tif": "a sample layout Pillow has no mode for; libtiff (libvips) decodes it",
        "hopper_webp.tif": "Pillow's libtiff has no WebP codec; Debian's (libvips) decodes every strip",
        "png_decompression_dos.png": "Pillow refuses a huge text chunk (its MAX_TEXT_CHUNK); the pixels are whole",
        "sugarshack_ifd_offset.mpo": "DWImage reads an MPO as its first JPEG picture, which is whole; Pillow's MPO "
            + "reader refuses the broken index of the second",
        "sugarshack_no_data.mpo":
            "DWImage reads an MPO as its first JPEG picture, which is whole; the second has no data",
        "tiff_tiled_jpeg_oob_read.tif": "JPEG tiles past the image's edge: libtiff (libvips) decodes them, Pillow's "
            + "decoder fails (the file tests Pillow's out-of-bounds fix)",
        "unknown_compression_method.png": "its iCCP chunk names compression 1: libpng (libvips, browsers) drops the "
            + "profile and shows the pixels; Pillow refuses the file"
    ]

    func testWeReadPillowsOwnImagesAsPillowDoes() throws {
        let (images, version) = try Self.corpus()
        let pillow = try Self.pillowVerdicts(images)
        var both = 0, agree = 0, disagreements: [String] = [], brokenPassed: [String] = [], refused: [String] = []
        var unrecognised: [String] = []
        for (file, theirs) in pillow.sorted(by: { $0.key < $1.key }) {
            let data = try Data(contentsOf: images.appendingPathComponent(file))
            guard let ours = try? DWImage(data: data) else {
                if let theirs, Self.formatNames[theirs.format] != nil { unrecognised.append(file) }
                continue
            }
            if let theirs {
                both += 1
                // Frames are compared where both count frames of an animation (GIF, APNG, WebP); a multi-page TIFF,
                // an MPO's second picture or an AVIF sequence is one image to DWImage (its first), by design.
                let animated = [.gif, .png, .webp].contains(ours.format)
                let facts = [ours.pixelWidth, ours.pixelHeight, animated ? ours.frameCount : 1]
                let expected = [theirs.facts[0], theirs.facts[1], animated ? theirs.facts[2] : 1]
                // A format only a registered codec reads (QOI, when another test registered it) by its own name.
                let format = Self.formatNames[theirs.format] ?? DWImageFormat(rawValue: theirs.format)
                let same = format == ours.format && facts == expected
                if same {
                    agree += 1
                } else {
                    disagreements.append(
                        "\(file): ours \(ours.format.rawValue) \(facts), Pillow \(theirs.format) \(expected)")
                }
            }
            let verified = (try? ours.verifyDecodes()) != nil
            if theirs?.full != true, verified, Self.verifiedThoughPillowFails[file] == nil {
                brokenPassed.append(file)
            }
            if theirs?.full == true, !verified { refused.append(file) }
        }
        let share = Double(agree) / Double(max(1, both))
        print(
            "Pillow \(version)'s \(pillow.count) test images: \(both) both read, \(agree) agree ("
                + String(format: "%.1f %%", share * 100) + ")" + disagreements.map { "\n  - \($0)" }.joined()
                + "\n--verify refuses \(refused.count) file(s) Pillow decodes: \(refused.joined(separator: ", "))"
                + "\nnot recognised though Pillow reads them: \(unrecognised.joined(separator: ", "))")
        XCTAssertGreaterThan(both, 500, "the corpus is Pillow's whole Tests/images")
        XCTAssertGreaterThanOrEqual(share, Self.agreementBar, disagreements.joined(separator: "\n"))
        XCTAssertEqual(brokenPassed, [], "--verify passes files Pillow cannot decode")
        // The formats libvips reads with its untrusted loaders (Netpbm, JPEG 2000, FITS): every file Pillow opens is
        // ours too.
        let untrusted = unrecognised.filter { ["PPM", "JPEG2000", "FITS"].contains(pillow[$0]??.format) }
        XCTAssertEqual(untrusted, [], "Netpbm, JPEG 2000 or FITS files Pillow opens and we do not")
    }

    // MARK: The corpus

    /// Pillow's Tests/images for the installed Pillow's version: `pip download` of its source distribution once, then
    /// the images unpacked beside it (`.corpus/pillow-<version>/`).
    static func corpus() throws -> (images: URL, version: String) {
        let version = try Python.system.script("import PIL; print(PIL.__version__)")
        let folder = packageRoot.appendingPathComponent(".corpus")
        let images = folder.appendingPathComponent("pillow-\(version)/Tests/images")
        if FileManager.default.fileExists(atPath: images.path) { return (images, version) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let sdist = folder.appendingPathComponent("pillow-\(version).tar.gz")
        if !FileManager.default.fileExists(atPath: sdist.path) {
            // The source distribution only (its build dependencies as wheels: building them from source takes minutes).
            _ = try Python.system.run([
                "-m", "pip", "download", "--no-binary", "pillow", "--no-deps", "--quiet",
                "pillow==\(version)", "-d", folder.path
            ])
        }
        _ = try Subprocess.output(["tar", "-xzf", sdist.path, "-C", folder.path, "pillow-\(version)/Tests/images"])
        return (images, version)
    }

    struct PillowVerdict {
        var format: String
        var facts: [Int]
        var full: Bool
    }

    /// Pillow's verdict per file (relative path); nil where Pillow does not open it.
    static func pillowVerdicts(_ images: URL) throws -> [String: PillowVerdict?] {
        let out = try Python.system.run([script.path, images.path])
        guard let json = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any] else {
            throw NSError(
                domain: "PillowCorpusTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "no JSON from Pillow"])
        }
        var verdicts: [String: PillowVerdict?] = [:]
        for (file, value) in json where !file.isEmpty {
            guard let v = value as? [Any], v.count == 5, let format = v[0] as? String, let w = v[1] as? Int,
                let h = v[2] as? Int, let n = v[3] as? Int, let full = v[4] as? Bool
            else {
                verdicts[file] = .some(nil)
                continue
            }
            verdicts[file] = PillowVerdict(format: format, facts: [w, h, n], full: full)
        }
        return verdicts
    }
}
