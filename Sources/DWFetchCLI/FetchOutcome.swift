// FetchOutcome: what one URL of a dwfetch run came to (its image's summary, the saved path, the error), and the
// run's report counted from them.
import Crypto
import DWWebImage
import Foundation

/// What a report needs from an image — not its bytes, so a run over thousands of URLs holds no image data.
struct ImageSummary: Sendable {
    let source: DWImageSource
    let byteCount: Int
    let format: DWImageFormat
    let pixelWidth: Int
    let pixelHeight: Int
    let frameCount: Int
    let loopCount: Int
    /// One play of an animation (GIF, APNG, WebP: the sum of its frame delays); 0 for a still image.
    let duration: TimeInterval
    /// Hex SHA-256 of the bytes (computed only for `--json`).
    let sha256: String?
    let metrics: DWDownloadMetrics?
    /// For a processed image: the original's facts and the variant (`--resize` and friends).
    let original: SourceFacts?

    init(_ image: DWImage, hash: Bool, original: SourceFacts? = nil) {
        self.original = original
        source = image.source
        byteCount = image.data.count
        format = image.format
        pixelWidth = image.pixelWidth
        pixelHeight = image.pixelHeight
        frameCount = image.frameCount
        loopCount = image.loopCount
        duration = image.duration
        if hash {
            var hasher = SHA256()
            image.forEachDataWindow { hasher.update(bufferPointer: $0) }
            sha256 = DWHex.encode(hasher.finalize())
        } else {
            sha256 = nil
        }
        metrics = image.metrics
    }
}

/// What happened to one distinct URL.
struct FetchOutcome: Sendable {
    let url: String
    let result: Result<ImageSummary, DWWebImageError>
    let path: String?
    let writeError: String?
    /// The request's record (network or cache), when the manager reported one.
    var metrics: DWDownloadMetrics?
    /// Fetched through `--prefetch`.
    var prefetched = false

    /// The image arrived and, with `-o`, was written.
    var succeeded: Bool {
        if case .success = result { return writeError == nil }
        return false
    }
}

/// Totals for the summary line and the exit status.
package struct FetchReport: Sendable {
    /// Images fetched (and written, with `-o`).
    package var fetched = 0
    /// URLs that failed.
    package var failed = 0
    /// Bytes of the images fetched.
    package var bytes: Int64 = 0
    /// Seconds from start to the last line.
    package var elapsed: TimeInterval = 0

    /// Counts one line's outcome.
    mutating func count(_ outcome: FetchOutcome) {
        if outcome.succeeded, case .success(let image) = outcome.result {
            fetched += 1
            bytes += Int64(image.byteCount)
        } else {
            failed += 1
        }
    }
}
