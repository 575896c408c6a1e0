// DWRequestID: a request's ID, from its X-Request-ID when usable, else made here; in every log line of the request.
import DWLocking
import DWWebImage
import Foundation
import HTTPTypes
import Logging

/// `X-Request-ID`: accepted from the client when it is 1–128 characters of letters, digits and `-_.:`; otherwise
/// (absent, or anything else, which could forge log lines) a new 20-hex-digit ID. Echoed in the response and put in
/// every log line the request's task writes, through ``metadataProvider``. Any thread (the counter is one `DWLock`,
/// a leaf).
enum DWRequestID {
    /// `X-Request-ID`.
    static let field = HTTPField.Name("X-Request-ID")!

    /// The ID for a request whose `X-Request-ID` header is `header`.
    static func id(from header: String?) -> String {
        if let header, (1...128).contains(header.utf8.count), header.utf8.allSatisfy(isAllowed) { return header }
        return made()
    }

    /// 128 random bits drawn once per process, keying ``made()``.
    private static let key = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))
    private static let counter = DWLock(UInt64(0))

    /// A new ID: a per-process counter through SplitMix64's finalizer (a bijection, so the first 16 digits never
    /// repeat within a process) keyed by ``key``, so processes differ. Not a secret — a client may send any ID it
    /// likes — and it costs no system call or string formatting per request (ten `getrandom` calls and ten
    /// `String(format:)` were ~6 % of a cached variant's CPU).
    static func made() -> String {
        let n = counter.withLock { c -> UInt64 in
            c &+= 1
            return c
        }
        let high = mix(n &+ key.0), low = mix(n ^ key.1)
        // 20 hex digits: the 8 bytes of `high` and the top 2 of `low`, most significant first.
        let bytes = (high.bigEndian, UInt16(truncatingIfNeeded: low >> 48).bigEndian)
        return withUnsafeBytes(of: bytes) { DWHex.encode(UnsafeRawBufferPointer(rebasing: $0.prefix(10))) }
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
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
