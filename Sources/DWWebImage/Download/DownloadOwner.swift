// DownloadOwner: what a downloader tells the manager that made it.
import Foundation

/// What a downloader tells its manager (``DWWebImageManager`` implements it). The downloader reaches it weakly,
/// through ``DownloadContext/owner``: a manager released mid-download hears nothing more of it.
protocol DownloadOwner: AnyObject, Sendable {
    /// The download takes no new callers and holds no slot. Called once per downloader, on the thread that ends
    /// it: the engine thread or the work queue when its last request ends, or the cancelling caller's thread when
    /// it is cancelled with no request in flight.
    func downloadEnded(_ downloader: DWWebImageDownloader)

    /// Makes each variant of the downloaded `original` for its callers (`groups`: one group of callers per variant)
    /// and answers them on `callbacks`. Called at most once per download, after the original's callers: inside
    /// their block on the callback queue, right after a cache write that runs in that block; else on the thread that
    /// ended the download (the engine thread or the work queue) once that block is queued.
    func makeVariants(from original: DWImage, for groups: [[Waiter]], callbacks: DispatchQueue)

    /// The metrics handler, read once when a download ends, on the thread that ends it.
    var metricsHandler: (@Sendable (DWDownloadMetrics) -> Void)? { get }
}
