// The notification names and userInfo keys of the DW original, posted on the manager's callbackQueue.
import Foundation

extension Notification.Name {
    /// A transfer started (not posted for cache hits, nor for callers that joined a download already under way).
    /// `object`: the ``DWWebImageDownloader``. userInfo: `"url"` (String).
    public static let DWWebImageDownloadStart = Notification.Name("DWWebImageDownloadStartNotification")
    /// A download ended, successfully or not. `object`: the ``DWWebImageDownloader``.
    /// userInfo: `"url"`, `"metrics"` (``DWDownloadMetrics``), and `"image"` (``DWImage``) or `"error"`
    /// (``DWWebImageError``).
    public static let DWWebImageDownloadFinish = Notification.Name("DWWebImageDownloadFinishNotification")
    /// A downloaded image is durably on disk. `object`: the ``DWWebImageCache``. userInfo: `"url"`.
    /// When the write failed, userInfo also has `"error"` (``DWWebImageError`` code 10008).
    public static let DWWebImageCacheComplete = Notification.Name("DWWebImageCacheCompleteNotification")
    /// A download stopped without finishing because it was cancelled (its last waiter cancelled, or
    /// `removeOperation(byURL:)`). `object`: the ``DWWebImageDownloader``. userInfo: `"url"`.
    public static let DWWebImageDownloadStop = Notification.Name("DWWebImageDownloadStopNotification")
    /// Disk entries were removed by an expiry sweep or to keep the disk budget (Kingfisher's disk-clean
    /// notification). `object`: the ``DWWebImageCache``. userInfo: `"keys"` ([String], the removed keys).
    /// Posted on the cache's own serial queue.
    public static let DWWebImageCacheDidClean = Notification.Name("DWWebImageCacheDidCleanNotification")
}

/// The userInfo keys of DWWebImage's notifications.
public enum DWWebImageNotificationKey {
    /// The request's URL string.
    public static let url = "url"
    /// The ``DWImage`` (Finish, on success).
    public static let image = "image"
    /// The ``DWWebImageError`` (Finish on failure; CacheComplete when the write failed).
    public static let error = "error"
    /// The ``DWDownloadMetrics`` of the download (Finish).
    public static let metrics = "metrics"
}
