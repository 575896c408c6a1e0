// GIFStructure: a DWImage's GIF facts, with giflib's index of its frames made when first needed.
import DWLocking
import Foundation

/// What a ``DWImage`` knows about its GIF: the frame count, loops and duration its constructor needs, and the
/// ``GIFIndex`` (every frame's offset, rect and timing) that decoding and ``DWImage/frameDelays`` need.
///
/// A plain file (``GIFSummary``) gets its facts from the Swift walk, and its index only when something asks for
/// one; any other file is indexed with giflib at once (so giflib validates it, and refuses it, from the start). A
/// reference type, so copies of an image share one index. Thread safety: the index is made at most once, under
/// `lazy`'s lock, on the thread that first asks.
final class GIFStructure: Sendable {
    let frameCount: Int
    let loopCount: Int
    let duration: Double
    let isPartial: Bool
    private let limits: DWAnimatedImage.Limits
    private let lazy: DWLock<GIFIndex?>

    /// The structure of the GIF `data`: the Swift walk's facts when it accepts the file, else giflib's index now.
    /// `release`: `data` is a mapping the library made (see ``FileBytes``); such a file is walked by giflib
    /// alone when it is large enough for its pages to be released as they are read.
    ///
    /// - Throws: as ``GIFIndex/scan(_:limits:release:)``.
    init(data: Data, limits: DWAnimatedImage.Limits, release: Bool) throws(DWWebImageError) {
        self.limits = limits
        let summary =
            release && data.count >= GIFSession.dropStep
            ? nil : data.withUnsafeBytes { GIFSummary.walk($0, limits: limits) }
        if let summary {
            frameCount = summary.frameCount
            loopCount = summary.loopCount
            duration = summary.duration
            isPartial = false
            lazy = DWLock(nil)
        } else {
            let index = try GIFIndex.scan(data, limits: limits, release: release)
            frameCount = index.frames.count
            loopCount = index.loopCount
            duration = index.duration
            isPartial = index.isPartial
            lazy = DWLock(index)
        }
    }

    /// Whether giflib's index has been made. A hook for the tests (reached by `@testable import`; nothing in the
    /// package reads it): they check that a plain file is indexed only when something asks for its frames.
    var isIndexed: Bool { lazy.withLock { $0 != nil } }

    /// giflib's index of `data` (the bytes this structure was made from), made on first use and kept; nil only if
    /// giflib refuses a file the Swift walk accepted, which ``GIFSummary``'s rules exclude.
    func index(of data: Data, release: Bool) -> GIFIndex? {
        lazy.withLock { stored in
            if let stored { return stored }
            stored = try? GIFIndex.scan(data, limits: limits, release: release)
            return stored
        }
    }
}
