// DWWebImageError+Server: the kinds of error the server builds, each with the message its sites share.
import DWWebImage

extension DWWebImageError {
    /// 10004 carrying 404: the source does not exist where the server looked (`message` says where). Any thread.
    static func missing(_ message: String, url: String? = nil) -> DWWebImageError {
        DWWebImageError(.httpStatus, message, url: url, httpStatus: 404)
    }

    /// 10002: `url` names a named origin's source that does not resolve (`message` says why). Any thread.
    static func badOriginSource(_ url: String, _ message: String) -> DWWebImageError {
        DWWebImageError(.invalidURL, message, url: url)
    }

    /// 10005 in imgproxy's words: the source image's `what` (file, resolution) is over the option `flag` (`msfs`,
    /// `msr`, `mafr`); `size` is the value refused. Any thread.
    static func sourceTooBig(_ what: String, _ flag: String, size: Int64, limit: Int64) -> DWWebImageError {
        DWWebImageError(.tooLarge, "source image \(what) is too big (\(flag))", size: size, limit: limit)
    }
}
