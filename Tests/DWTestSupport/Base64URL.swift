// base64url: RFC 4648 §5 without padding, as imgproxy's source URLs and signatures use it.
import Foundation

/// `bytes` in base64url without padding (`+` → `-`, `/` → `_`, no `=`). Any thread.
public func base64url<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}
