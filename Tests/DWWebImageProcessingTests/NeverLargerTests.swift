// `nl:1` (DWTransform.neverLarger) and `mb:`: a plan never answers more bytes than its source for the same image.
import DWTestServer
import DWWebImage
import DWWebImageProcessing
import XCTest

final class NeverLargerTests: XCTestCase {
    /// A re-encode at a higher quality is larger than a small JPEG: with `nl` (or `mb`) the answer is the source's
    /// own bytes; another size, or a source whose metadata must be stripped, is still the result.
    func testTheSourceIsTheAnswerWhenTheResultIsNoSmaller() throws {
        let source = try DWConvert(format: .jpeg, quality: 30).process(
            DWImage(data: SampleImages.png(width: 64, height: 48)))
        var transform = DWTransform()
        transform.quality = 95
        XCTAssertGreaterThan(try transform.plan().process(source).data.count, source.data.count, "the premise")
        transform.neverLarger = true
        XCTAssertEqual(try transform.plan().process(source).data, source.data)
        XCTAssertTrue(transform.identifier.contains("nl:1"), "its own key")
        var bounded = DWTransform()
        (bounded.quality, bounded.maxBytes) = (95, 1_000_000)
        XCTAssertEqual(try bounded.plan().process(source).data, source.data, "mb: never more than the source")
        var resized = transform
        resized.width = 32
        XCTAssertEqual(try resized.plan().process(source).pixelWidth, 32, "another size: the result")
        let withExif = try Fixtures.image("orient1.jpg")
        XCTAssertNotEqual(try transform.plan().process(withExif).data, withExif.data, "EXIF to strip: never the source")
    }
}
