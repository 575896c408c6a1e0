// GIFSession: one giflib decoding handle over an in-memory buffer, opened and closed in one scope.
//
// giflib reads through `DGifOpen`'s input callback from a bounds-checked cursor (never more than asked, 0 at the
// end), and the handle is closed exactly once with `DGifCloseFile` — which frees it even when it reports an error
// (giflib 5.2.1), so nothing touches it afterwards. Handles never outlive the scope: giflib's `SavedImages` grows
// with every `DGifGetImageDesc`, so a long-lived handle would grow without bound under a looping player.
internal import CGif
import Foundation

/// The byte cursor giflib's input callback reads from (through `GifFileType.UserData`).
struct GIFInput {
    var base: UnsafeRawPointer?
    var count: Int
    var offset: Int
    /// When the bytes are one of ``FileBytes``' mappings and may be released: how far pages behind the cursor
    /// have been dropped (the decoder only ever moves forward within a session; a page read again faults back in).
    var releasable: Bool = false
    var dropped: Int = 0

    /// When releasable, drops the pages before `position` — once at least ``GIFSession/dropStep`` has been passed
    /// since the last drop. Called by the input callback and by anything that moves through the bytes itself (the
    /// index skipping a frame's data sub-blocks, which can be megabytes long).
    mutating func release(upTo position: Int) {
        guard releasable, position - dropped >= GIFSession.dropStep, position <= count, let base else { return }
        FileBytes.drop(UnsafeRawBufferPointer(start: base + dropped, count: position - dropped))
        dropped = position
    }
}

enum GIFSession {
    /// Opens giflib over `bytes` (screen descriptor and global colour map read), runs `body`, closes the handle.
    ///
    /// - Throws: ``DWWebImageError`` 10000 when giflib cannot open the data; whatever `body` throws.
    static func with<R>(
        _ bytes: UnsafeRawBufferPointer, release: Bool = false,
        _ body: (UnsafeMutablePointer<GifFileType>, UnsafeMutablePointer<GIFInput>) throws(DWWebImageError) -> R
    ) throws(DWWebImageError) -> R {
        let input = UnsafeMutablePointer<GIFInput>.allocate(capacity: 1)
        input.initialize(
            to: GIFInput(
                base: bytes.baseAddress, count: bytes.count, offset: 0,
                releasable: release && FileBytes.isMapping(bytes)))
        defer { input.deallocate() }
        var error: Int32 = 0
        guard
            let gif = DGifOpen(
                UnsafeMutableRawPointer(input),
                { file, buffer, length in
                    // giflib's InputFunc: copy at most `length` bytes from the cursor; 0 at the end (giflib treats a
                    // short read as an error, so truncation surfaces as GIF_ERROR rather than as a read past the
                    // buffer).
                    guard let file, let buffer, length > 0, let user = file.pointee.UserData else { return 0 }
                    let cursor = user.assumingMemoryBound(to: GIFInput.self)
                    guard let base = cursor.pointee.base else { return 0 }
                    let available = cursor.pointee.count - cursor.pointee.offset
                    let n = min(Int(length), available)
                    guard n > 0 else { return 0 }
                    UnsafeMutableRawPointer(buffer).copyMemory(from: base + cursor.pointee.offset, byteCount: n)
                    cursor.pointee.offset += n
                    cursor.pointee.release(upTo: cursor.pointee.offset)
                    return Int32(n)
                }, &error)
        else {
            throw DWWebImageError.notAnImage(nil, bytes: bytes.count, detail: "giflib: \(describe(error))")
        }
        defer {
            var closeError: Int32 = 0
            _ = DGifCloseFile(gif, &closeError)  // always frees the handle, whatever it returns
        }
        return try body(gif, input)
    }

    /// How much a releasable input is read between drops of what lies behind the cursor.
    static let dropStep = 256 * 1024

    /// giflib's text for an error code.
    static func describe(_ code: Int32) -> String {
        if let text = GifErrorString(code) { return String(cString: text) + " (\(code))" }
        return "error \(code)"
    }
}
