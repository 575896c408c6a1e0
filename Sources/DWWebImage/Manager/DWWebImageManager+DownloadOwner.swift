// DWWebImageManager + DownloadOwner: what the manager does when a downloader tells it something.
import Foundation

extension DWWebImageManager: DownloadOwner {
    /// One transform job per variant (``makeVariant(from:for:callbacks:)``); on the thread the downloader calls
    /// from (see ``DownloadOwner/makeVariants(from:for:callbacks:)``).
    func makeVariants(from original: DWImage, for groups: [[Waiter]], callbacks: DispatchQueue) {
        for waiters in groups { makeVariant(from: original, for: waiters, callbacks: callbacks) }
    }
}
