// Hex: lowercase hex of bytes, without String(format:) (which costs ~1 µs per byte through Foundation).

/// Lowercase hexadecimal encoding.
package enum DWHex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lowercase hex, two characters per byte.
    package static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        if let hex = bytes.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0)) }) { return hex }
        return Array(bytes).withUnsafeBytes { encode($0) }
    }

    /// `bytes` as lowercase hex, written straight into the string's storage.
    package static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (i, byte) in bytes.enumerated() {
                out[2 * i] = digits[Int(byte >> 4)]
                out[2 * i + 1] = digits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }
}
