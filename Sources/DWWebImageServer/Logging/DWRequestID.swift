// DWRequestID: a request's ID, from its X-Request-ID when usable, else made here; in every log line of the request.
import Foundation
import HTTPTypes
import Logging

/// `X-Request-ID`: accepted from the client when it is 1–128 characters of letters, digits and `-_.:`; otherwise
/// (absent, or anything else, which could forge log lines) a new 20-hex-digit ID. Echoed in the response and put in
/// every log line the request's task writes, through ``metadataProvider``. Pure; any thread.
enum DWRequestID {
    /// `X-Request-ID`.
    static let field = HTTPField.Name("X-Request-ID")!

    /// The ID for a request whose `X-Request-ID` header is `header`.
    static func id(from header: String?) -> String {
        if let header, (1...128).contains(header.utf8.count), header.utf8.allSatisfy(isAllowed) { return header }
        var bytes = [UInt8](repeating: 0, count: 10)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: ":"):
            true
        default: false
        }
    }

    /// `request_id` of the request this task answers (``DWAccessNote/current``), for a logger's metadata.
    static let metadataProvider = Logger.MetadataProvider {
        guard let id = DWAccessNote.current?.requestID else { return [:] }
        return ["request_id": .string(id)]
    }
}
