// GIFWideLZW: the LZW decoder for a frame whose minimum code size is 9…11, which giflib refuses (it reads pixels
// into bytes) and libnsgif (libvips' gifload) and Pillow decode: the code table still has at most 4096 entries
// (12-bit codes), only the literal codes run past 255. A code past the colour map is drawn as any index past the
// map is, opaque black. The data sub-blocks are read from the bytes directly, never past their end.

/// Decodes one frame's image data, a line at a time, from the first sub-block after its minimum code size byte.
/// A value type used on one thread (the caller's), for the length of one frame.
struct GIFWideLZW {
    /// The widest minimum code size decoded here: its first codes are 12 bits, the most a GIF code can have.
    static let widest = 11

    private let bytes: UnsafeRawBufferPointer
    private var cursor: Int
    private var blockEnd: Int
    private var bits: UInt32 = 0
    private var bitCount = 0
    private let clear: Int
    private var codeSize: Int
    private var nextCode: Int
    private var previous = -1
    private var prefix = [UInt16](repeating: 0, count: 4096)
    private var suffix = [UInt16](repeating: 0, count: 4096)
    /// The rest of the last code's string, last pixel first.
    private var pending: [UInt16] = []
    private var ended = false

    /// `dataStart`: the first sub-block's length byte; `minimumCodeSize`: 2…``widest``.
    init(_ bytes: UnsafeRawBufferPointer, dataStart: Int, minimumCodeSize: Int) {
        precondition((2...Self.widest).contains(minimumCodeSize))
        self.bytes = bytes
        cursor = min(dataStart, bytes.count)
        blockEnd = cursor
        clear = 1 << minimumCodeSize
        codeSize = minimumCodeSize + 1
        nextCode = clear + 2
        pending.reserveCapacity(4097)
    }

    /// Fills `line` with the next `count` colour indices; false when the data ends or is corrupt first.
    mutating func nextLine(_ line: UnsafeMutablePointer<UInt16>, count: Int) -> Bool {
        for k in 0..<count {
            guard let pixel = nextPixel() else { return false }
            line[k] = pixel
        }
        return true
    }

    private mutating func nextPixel() -> UInt16? {
        if let pixel = pending.popLast() { return pixel }
        while !ended {
            guard let code = readCode() else { break }
            if code == clear {
                codeSize = clear.trailingZeroBitCount + 1
                nextCode = clear + 2
                previous = -1
                continue
            }
            if code == clear + 1 { break }
            if previous < 0 {
                guard code < clear else { break }
                previous = code
                return UInt16(code)
            }
            guard code <= nextCode else { break }
            var c = code
            if code == nextCode {  // the string of the previous code and its own first pixel
                pending.append(0)
                c = previous
            }
            while c >= clear {
                pending.append(suffix[c])
                c = Int(prefix[c])
            }
            pending.append(UInt16(c))
            if code == nextCode { pending[0] = UInt16(c) }
            if nextCode < 4096 {
                prefix[nextCode] = UInt16(previous)
                suffix[nextCode] = UInt16(c)
                nextCode += 1
                if nextCode == 1 << codeSize && codeSize < 12 { codeSize += 1 }
            }
            previous = code
            return pending.popLast()
        }
        ended = true
        return nil
    }

    /// The next code, from as many sub-blocks as it spans; nil at the block terminator or the end of the bytes.
    private mutating func readCode() -> Int? {
        while bitCount < codeSize {
            if cursor == blockEnd {
                guard blockEnd < bytes.count, bytes[blockEnd] != 0 else { return nil }
                cursor = blockEnd + 1
                blockEnd = min(cursor + Int(bytes[blockEnd]), bytes.count)
                if cursor == blockEnd { return nil }
            }
            bits |= UInt32(bytes[cursor]) << UInt32(bitCount)
            cursor += 1
            bitCount += 8
        }
        let code = Int(bits & ((1 << UInt32(codeSize)) - 1))
        bits >>= UInt32(codeSize)
        bitCount -= codeSize
        return code
    }
}
