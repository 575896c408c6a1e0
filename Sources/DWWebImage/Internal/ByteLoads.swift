// ByteLoads: fixed-width integers read from raw bytes in a stated byte order, for the parsers that have already
// checked their bounds (the sniffers' `Bytes` checks them per read).

extension UnsafeRawBufferPointer {
    /// The big-endian 16-bit value at `offset`. The caller has checked `offset + 2 <= count` (a read past the end
    /// traps, as a subscript does). Pure; any thread.
    package func bigEndianUInt16(at offset: Int) -> UInt16 { UInt16(self[offset]) << 8 | UInt16(self[offset + 1]) }

    /// The big-endian 32-bit value at `offset`; the caller has checked `offset + 4 <= count`.
    package func bigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
            | UInt32(self[offset + 3])
    }

    /// The little-endian 16-bit value at `offset`; the caller has checked `offset + 2 <= count`.
    package func littleEndianUInt16(at offset: Int) -> UInt16 {
        UInt16(self[offset + 1]) << 8 | UInt16(self[offset])
    }

    /// The little-endian 32-bit value at `offset`; the caller has checked `offset + 4 <= count`.
    package func littleEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset + 3]) << 24 | UInt32(self[offset + 2]) << 16 | UInt32(self[offset + 1]) << 8
            | UInt32(self[offset])
    }

    /// The little-endian 64-bit value at `offset`; the caller has checked `offset + 8 <= count`.
    package func littleEndianUInt64(at offset: Int) -> UInt64 {
        UInt64(littleEndianUInt32(at: offset + 4)) << 32 | UInt64(littleEndianUInt32(at: offset))
    }

    /// The four bytes at `offset` as text (a chunk or box type); the caller has checked `offset + 4 <= count`.
    package func fourCC(at offset: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: self[offset..<offset + 4]), as: UTF8.self)
    }
}
