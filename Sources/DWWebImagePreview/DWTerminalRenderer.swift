// DWTerminalRenderer: a DWBitmap (or a DWImage's first frame) as terminal output, through libchafa.
internal import CChafa
import DWWebImage
import DWWebImageProcessing
import Foundation

/// A rendered picture: the terminal output and the cells it covers.
public struct DWTerminalPicture: Sendable, Hashable {
    /// The bytes to write to the terminal, starting at the cursor's column 0. Symbols: `rows` lines separated by
    /// `"\n"`, each ending with attributes reset, no trailing newline. Pixel protocols: one escape sequence.
    public let text: String
    /// Width in cells.
    public let columns: Int
    /// Height in cells.
    public let rows: Int
}

/// Renders pixels for a terminal in a given ``DWTerminalFormat`` with libchafa (the library behind `chafa`).
///
/// A plain value with no shared state: use one from any thread, or several at once (each call makes its own
/// libchafa canvas; libchafa's own worker threads do the symbol matching).
public struct DWTerminalRenderer: Sendable {
    /// The protocol and colours to render in.
    public var format: DWTerminalFormat
    /// One cell's width in pixels: sizes the picture for the pixel protocols and sets the cells' aspect ratio.
    public var cellWidth: Int
    /// One cell's height in pixels.
    public var cellHeight: Int

    /// A renderer for `format`, on cells of `cellWidth` × `cellHeight` pixels (the usual 1:2 by default; see
    /// ``DWTerminalSize/cellSize`` for the real terminal's).
    public init(format: DWTerminalFormat = .symbols, cellWidth: Int = 10, cellHeight: Int = 20) {
        self.format = format
        self.cellWidth = max(1, cellWidth)
        self.cellHeight = max(1, cellHeight)
    }

    /// The cells a `width` × `height` image covers within `maxColumns` × `maxRows` (see ``DWTerminalFit``).
    public func fit(width: Int, height: Int, maxColumns: Int, maxRows: Int) -> DWTerminalFit {
        DWTerminalFit.fitting(
            width: width, height: height, maxColumns: maxColumns, maxRows: maxRows,
            cellWidth: cellWidth, cellHeight: cellHeight, graphics: format.graphics)
    }

    /// `bitmap` scaled into exactly `columns` × `rows` cells (its proportions are yours to keep: see ``fit``).
    /// Transparent pixels show the terminal's background.
    public func render(_ bitmap: DWBitmap, columns: Int, rows: Int) -> DWTerminalPicture {
        let columns = max(1, columns), rows = max(1, rows)
        guard let config = dw_chafa_config_new() else {
            return DWTerminalPicture(text: "", columns: columns, rows: rows)
        }
        defer { dw_chafa_config_free(config) }
        dw_chafa_config_set_geometry(config, Int32(columns), Int32(rows))
        dw_chafa_config_set_cell_geometry(config, Int32(cellWidth), Int32(cellHeight))
        switch format.graphics {
        case .symbols: dw_chafa_config_set_pixel_mode(config, DW_CHAFA_PIXEL_MODE_SYMBOLS)
        case .sixels: dw_chafa_config_set_pixel_mode(config, DW_CHAFA_PIXEL_MODE_SIXELS)
        case .kitty: dw_chafa_config_set_pixel_mode(config, DW_CHAFA_PIXEL_MODE_KITTY)
        case .iterm: dw_chafa_config_set_pixel_mode(config, DW_CHAFA_PIXEL_MODE_ITERM2)
        }
        switch format.colors {
        case .trueColor: dw_chafa_config_set_canvas_mode(config, DW_CHAFA_CANVAS_MODE_TRUECOLOR)
        case .palette256: dw_chafa_config_set_canvas_mode(config, DW_CHAFA_CANVAS_MODE_INDEXED_256)
        case .palette16: dw_chafa_config_set_canvas_mode(config, DW_CHAFA_CANVAS_MODE_INDEXED_16)
        case .none: dw_chafa_config_set_canvas_mode(config, DW_CHAFA_CANVAS_MODE_FGBG)
        }
        if format.graphics == .symbols {
            // Blocks (half, quarter, sextant…), borders and space: dense and legible everywhere, no Braille or
            // stipple noise; no dithering, so solid areas stay one colour.
            let tags = UInt32(
                DW_CHAFA_SYMBOL_BLOCK | DW_CHAFA_SYMBOL_BORDER
                    | DW_CHAFA_SYMBOL_SPACE | DW_CHAFA_SYMBOL_SOLID)
            dw_chafa_config_set_symbol_tags(config, tags)
            // Attributes are only sent when they change; repeated cells are written out (REP is not universal).
            dw_chafa_config_set_optimizations(config, UInt32(DW_CHAFA_OPTIMIZE_REUSE_ATTRIBUTES))
            dw_chafa_config_set_dither(config, format.colors == .trueColor ? 0 : 0.5)
        }
        guard let canvas = dw_chafa_canvas_new(config) else {
            return DWTerminalPicture(text: "", columns: columns, rows: rows)
        }
        defer { dw_chafa_canvas_free(canvas) }
        bitmap.pixels.withUnsafeBytes { raw in
            dw_chafa_canvas_draw_rgba8(
                canvas, raw.bindMemory(to: UInt8.self).baseAddress, Int32(bitmap.width),
                Int32(bitmap.height), Int32(bitmap.bytesPerRow))
        }
        var length = 0
        guard let bytes = dw_chafa_canvas_print(canvas, &length) else {
            return DWTerminalPicture(text: "", columns: columns, rows: rows)
        }
        defer { dw_chafa_free(bytes) }
        let text = String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
        return DWTerminalPicture(text: text, columns: columns, rows: rows)
    }

    /// `bitmap` fitted into `maxColumns` × `maxRows` cells, in proportion (``fit``).
    public func render(_ bitmap: DWBitmap, maxColumns: Int, maxRows: Int) -> DWTerminalPicture {
        let size = fit(width: bitmap.width, height: bitmap.height, maxColumns: maxColumns, maxRows: maxRows)
        return render(bitmap, columns: size.columns, rows: size.rows)
    }

    /// `image`'s first frame (decoded by `DWWebImageProcessing`'s `bitmap()`, on the calling thread) fitted into
    /// `maxColumns` × `maxRows` cells. An image much larger than the cells can show is shrunk while it loads
    /// (`DWResize`: JPEG and WebP decode at a reduced scale), so a 24-megapixel photo costs a thumbnail's memory.
    ///
    /// - Throws: what `bitmap()` throws: 10000 when the image does not decode, 10005 over the pixel limits.
    public func render(_ image: DWImage, maxColumns: Int, maxRows: Int) throws(DWWebImageError) -> DWTerminalPicture {
        render(
            try previewBitmap(image, maxColumns: maxColumns, maxRows: maxRows), maxColumns: maxColumns, maxRows: maxRows
        )
    }

    /// The first frame, no larger than a square box that holds every fit within the cells (orientation may swap
    /// the sides, so the box is square): symbols sample 8 × 8 pixels a cell, pixel protocols a cell's pixels.
    func previewBitmap(_ image: DWImage, maxColumns: Int, maxRows: Int) throws(DWWebImageError) -> DWBitmap {
        let sample = format.graphics == .symbols ? (8, 8) : (cellWidth, cellHeight)
        let box = max(1, max(1, maxColumns) * sample.0, max(1, maxRows) * sample.1)
        guard image.format != .gif, max(image.pixelWidth, image.pixelHeight) > box * 2 else {
            return try image.bitmap()
        }
        return try DWResize(width: box, height: box, mode: .fit).process(image).bitmap()
    }
}
