// DWWebImageManager + DownloadOwner: what the manager does when a downloader tells it something.
import Foundation

extension DWWebImageManager: DownloadOwner {
    /// One transform job per variant (``makeVariant(from:for:callbacks:runsHere:)``); on the thread the downloader
    /// calls from (see ``DownloadOwner/makeVariants(from:for:callbacks:)``). On the work queue, the first variant is
    /// made right there; the others are queued.
    func makeVariants(from original: DWImage, for groups: [[Waiter]], callbacks: DispatchQueue) {
        for (index, waiters) in groups.enumerated() {
            makeVariant(from: original, for: waiters, callbacks: callbacks, runsHere: index == 0)
        }
    }
}
