// IdleEncoderTests: a put-off encode saved in the encode helper (DWIdleEncoder) at SCHED_IDLE writes the bytes the
// same plan writes in this process, and the helper says it ran at SCHED_IDLE.
import DWTestServer
import DWTestSupport
import DWWebImage
@testable import DWWebImageProcessing
import Foundation
import XCTest

final class IdleEncoderTests: XCTestCase {
    /// Reports of the helper's scheduling, as a server's gate gets them.
    private let policies = Recorder<String>()

    private func gate(inHelper: Bool) -> DWEncodeGate {
        let gate = DWEncodeGate(formats: [.avif, .jxl], admits: nil, record: { _, _, _ in })
        return inHelper ? gate.inIdleHelper { [policies] in policies.append($0) } : gate
    }

    /// `transform` on `source` through a gated plan, the weighed formats saved in the helper or here.
    private func render(_ source: DWImage, _ transform: DWTransform, inHelper: Bool) throws -> DWImage {
        try DWVariantPlan(transform: transform).with(encodeGate: gate(inHelper: inHelper)).process(source)
    }

    /// A 640×480 picture with noise (so that libaom has work for its threads) at AVIF speed 6 and JPEG XL.
    func testTheHelpersBytesAreTheInProcessEncodesByteForByte() throws {
        var state: UInt32 = 7
        let source = try DWImage(
            data: SampleImages.png(width: 640, height: 480) { x, y in
                state = state &* 1_103_515_245 &+ 12345
                let noise = UInt8(truncatingIfNeeded: state >> 24) / 4
                return (UInt8(x * 255 / 639) / 2 + noise, UInt8(y * 255 / 479) / 2 + noise, UInt8((x + y) % 256), 255)
            })
        var settings = DWImageProcessing.encoderSettings
        let saved = settings
        settings.avifSpeed = 6
        DWImageProcessing.encoderSettings = settings
        defer { DWImageProcessing.encoderSettings = saved }
        for format in [DWImageFormat.avif, .jxl] {
            var transform = DWTransform()
            (transform.width, transform.format) = (600, format)
            let here = try render(source, transform, inHelper: false)
            let helper = try render(source, transform, inHelper: true)
            XCTAssertEqual(helper.format, format)
            XCTAssertGreaterThan(helper.data.count, 1000)
            XCTAssertTrue(helper.data == here.data, "\(format): \(helper.data.count) against \(here.data.count) bytes")
        }
        XCTAssertEqual(policies.values, ["idle", "idle"], "both saved in the helper, at SCHED_IDLE")
    }

    /// Metadata kept (EXIF and the ICC profile, `sm:0`-like): the `.v` hand-over carries every field the saver reads.
    func testKeptMetadataReachesTheHelpersSaver() throws {
        let source = try Fixtures.image("exif-icc.heic")
        var transform = DWTransform()
        (transform.width, transform.format) = (60, .avif)
        (transform.stripMetadata, transform.stripColorProfile) = (false, false)
        let here = try render(source, transform, inHelper: false)
        let helper = try render(source, transform, inHelper: true)
        XCTAssertTrue(helper.data == here.data, "\(helper.data.count) against \(here.data.count) bytes")
        XCTAssertTrue(helper.data.range(of: Data("Exif".utf8)) != nil, "EXIF kept")
        XCTAssertEqual(policies.values, ["idle"])
    }

    /// A missing or failing encode helper is an error (the put-off encode fails) that names the encode helper.
    func testAMissingOrFailingEncodeHelperIsNamedAsSuch() throws {
        defer { DWSVGRenderer.helperPath = nil }
        var transform = DWTransform()
        (transform.width, transform.format) = (60, .avif)
        let source = try DWImage(data: SampleImages.png(width: 100, height: 80))
        let expected = [
            "/nonexistent/dwfetch-svg":
                "cannot encode in the encode helper: its helper /nonexistent/dwfetch-svg is not installed",
            "/bin/false": "encode helper exited with 1: no answer"
        ]
        for (helper, message) in expected {
            DWSVGRenderer.helperPath = helper
            XCTAssertThrowsError(try render(source, transform, inHelper: true), helper) {
                XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage, "\(helper): \($0)")
                XCTAssertTrue(($0 as? DWWebImageError)?.message.hasPrefix(message) ?? false, "\(helper): \($0)")
            }
        }
        XCTAssertEqual(policies.values, [])
    }

    /// Formats the gate does not weigh (WebP here) never go to the helper.
    func testOtherFormatsAreSavedHere() throws {
        var transform = DWTransform()
        (transform.width, transform.format) = (100, .webp)
        let result = try render(try DWImage(data: SampleImages.png(width: 200, height: 150)), transform, inHelper: true)
        XCTAssertEqual(result.format, .webp)
        XCTAssertEqual(policies.values, [])
    }
}
