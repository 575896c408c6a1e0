// BMP and ICO/CUR headers: the bitmap header's size, and the ICO directory's largest entry (PNG entries by their
// IHDR).

extension ImageSniffer {
    // MARK: - BMP

    static func bmp(_ b: Bytes) throws(SniffFailure) -> ImageInfo {
        guard let headerSize = b.u32le(14) else { throw SniffFailure("BMP header ends at byte \(b.count)") }
        if headerSize == 12 {
            guard let w = b.u16le(18), let h = b.u16le(20) else {
                throw SniffFailure("BMP core header ends at byte \(b.count)")
            }
            return ImageInfo(format: .bmp, width: Int(w), height: Int(h))
        }
        guard headerSize >= 40 else { throw SniffFailure("BMP info header of \(headerSize) bytes") }
        guard let w = b.u32le(18), let h = b.u32le(22) else {
            throw SniffFailure("BMP info header ends at byte \(b.count)")
        }
        let width = Int(Int32(bitPattern: w)), height = Int(Int32(bitPattern: h)).magnitude
        guard width > 0 else { throw SniffFailure("BMP declares a width of \(width)") }
        return ImageInfo(format: .bmp, width: width, height: Int(height))
    }

    // MARK: - ICO / CUR (the largest entry; PNG entries by their IHDR)

    static func ico(_ b: Bytes) throws(SniffFailure) -> ImageInfo {
        let kind = b[2] == 1 ? "ICO" : "CUR"
        guard let count = b.u16le(4) else { throw SniffFailure("\(kind) header ends at byte \(b.count)") }
        guard count > 0 else { throw SniffFailure("\(kind) directory has no entries") }
        let directoryEnd = 6 + Int(count) * 16
        guard directoryEnd <= b.count else {
            throw SniffFailure(
                "\(kind) directory of \(count) entries ends at byte \(directoryEnd), past the \(b.count)-byte file")
        }
        // The largest by directory size (0 means 256), then by bit depth: Pillow's choice, and what a browser
        // draws when there is room. Cursors keep hotspots where icons keep planes and depth.
        var best: (entry: Int, area: Int, depth: Int)?
        for i in 0..<Int(count) {
            let entry = 6 + i * 16
            let w = Int(b[entry]) == 0 ? 256 : Int(b[entry]), h = Int(b[entry + 1]) == 0 ? 256 : Int(b[entry + 1])
            let depth = kind == "ICO" ? Int(b.u16le(entry + 6) ?? 0) : 0
            if best == nil || w * h > best!.area || (w * h == best!.area && depth > best!.depth) {
                best = (entry, w * h, depth)
            }
        }
        let entry = best!.entry
        let size = Int(b.u32le(entry + 8)!), offset = Int(b.u32le(entry + 12)!)
        let outside = SniffFailure(
            "\(kind) entry \((entry - 6) / 16) (\(size) bytes at byte \(offset)) is not inside the \(b.count)-byte file"
        )
        guard offset >= directoryEnd, size > 0, offset < b.count else { throw outside }
        // A PNG entry is a PNG stream from its offset, whatever byte count the directory gives it (as Pillow reads
        // it); a bitmap entry must lie inside the file.
        let rest = Bytes(UnsafeRawBufferPointer(rebasing: b.raw[offset...]))
        if rest.matches(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            let inner: ImageInfo
            do { inner = try png(rest) } catch { throw SniffFailure("\(kind) PNG entry: \(error.reason)") }
            return ImageInfo(format: .ico, width: inner.width, height: inner.height)
        }
        guard size <= b.count - offset else { throw outside }
        let payload = Bytes(UnsafeRawBufferPointer(rebasing: b.raw[offset..<offset + size]))
        // A BMP entry: a DIB header (BITMAPINFOHEADER or later) without the file header; the directory has its size.
        guard let header = payload.u32le(0), header >= 40 || header == 12 else {
            throw SniffFailure("\(kind) entry \((entry - 6) / 16) is neither PNG nor a DIB bitmap")
        }
        // Its size is the DIB header's (the height counting the AND mask's rows too), which the decoder draws,
        // whatever the directory says (as Pillow and browsers read it).
        let dibWidth =
            header == 12 ? payload.u16le(4).map(Int.init) : payload.u32le(4).map { Int(Int32(bitPattern: $0)) }
        let dibHeight =
            header == 12 ? payload.u16le(6).map(Int.init) : payload.u32le(8).map { Int(Int32(bitPattern: $0)) }
        if let dibWidth, let dibHeight, dibWidth > 0, abs(dibHeight) / 2 > 0 {
            return ImageInfo(format: .ico, width: dibWidth, height: abs(dibHeight) / 2)
        }
        let w = Int(b[entry]) == 0 ? 256 : Int(b[entry]), h = Int(b[entry + 1]) == 0 ? 256 : Int(b[entry + 1])
        return ImageInfo(format: .ico, width: w, height: h)
    }

    /// 1…256 entries that fit in the data, each with its reserved byte 0, a non-empty payload after the directory
    /// and (icons) at most 1 plane and a real bit depth.
    static func icoDirectoryIsValid(_ b: Bytes) -> Bool {
        guard let count = b.u16le(4), (1...256).contains(count) else { return false }
        let directoryEnd = 6 + Int(count) * 16
        guard directoryEnd <= b.count else { return false }
        let icon = b[2] == 1
        for i in 0..<Int(count) {
            let entry = 6 + i * 16
            guard b[entry + 3] == 0, let size = b.u32le(entry + 8), let offset = b.u32le(entry + 12), size > 0,
                Int(offset) >= directoryEnd
            else { return false }
            if icon {
                guard let planes = b.u16le(entry + 4), let depth = b.u16le(entry + 6), planes <= 1,
                    [0, 1, 2, 4, 8, 16, 24, 32].contains(depth)
                else { return false }
            }
        }
        return true
    }
}
