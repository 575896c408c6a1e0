// DWImageServer+ContentDisposition: the image response's Content-Disposition (imgproxy's `fn:` and `att:`).
import DWWebImage
import Foundation

extension DWImageServer {
    /// `inline` or `attachment` with a file name made safe: `fn:` or the source's last path component (without
    /// its extension), then the output's extension; quotes, controls and path separators never reach the header.
    static func contentDisposition(_ options: DWImgproxyOptions, source: String, format: DWImageFormat) -> String {
        let last = URL(string: source)?.deletingPathExtension().lastPathComponent ?? ""
        let base = options.filename ?? (last.isEmpty || last == "/" ? "image" : last)
        let name = base + "." + format.fileExtension
        let ascii = String(
            name.unicodeScalars.map { scalar -> Character in
                let c = Character(scalar)
                return scalar.isASCII && (c.isLetter || c.isNumber || "._- ()+,".contains(c)) ? c : "_"
            })
        let encoded =
            name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: ".-_")))
            ?? ascii
        return
            "\(options.returnAttachment ? "attachment" : "inline"); filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }
}
