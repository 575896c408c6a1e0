// DWTerminalSize: a terminal's size in cells and pixels (TIOCGWINSZ), cell shape, and fitting a picture into it.
import Foundation

/// A terminal window: columns × rows, and its size in pixels when the terminal reports it.
public struct DWTerminalSize: Sendable, Hashable {
    /// Width in character cells.
    public var columns: Int
    /// Height in character cells.
    public var rows: Int
    /// Width of the text area in pixels (`ws_xpixel`), 0 when unknown.
    public var pixelWidth: Int
    /// Height of the text area in pixels (`ws_ypixel`), 0 when unknown.
    public var pixelHeight: Int

    /// A size; pixels 0 mean "unknown".
    public init(columns: Int, rows: Int, pixelWidth: Int = 0, pixelHeight: Int = 0) {
        self.columns = columns
        self.rows = rows
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
    }

    /// The size of the terminal behind `fileDescriptor` (`ioctl(TIOCGWINSZ)`), nil when it is not a terminal or
    /// reports no size.
    public static func current(fileDescriptor: Int32 = STDOUT_FILENO) -> DWTerminalSize? {
        var size = winsize()
        guard ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return DWTerminalSize(
            columns: Int(size.ws_col), rows: Int(size.ws_row),
            pixelWidth: Int(size.ws_xpixel), pixelHeight: Int(size.ws_ypixel))
    }

    /// One cell's size in pixels: from the pixel size when the terminal reports it, else 10 × 20 (the usual 1:2).
    public var cellSize: (width: Int, height: Int) {
        if pixelWidth >= columns, pixelHeight >= rows, columns > 0, rows > 0 {
            let w = pixelWidth / columns, h = pixelHeight / rows
            if w > 0, h > 0 { return (w, h) }
        }
        return (10, 20)
    }
}

/// Where a picture goes: how many cells it covers.
public struct DWTerminalFit: Sendable, Hashable {
    /// Width in cells.
    public var columns: Int
    /// Height in cells.
    public var rows: Int

    /// A fit of `columns` × `rows` cells.
    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// The largest size within `maxColumns` × `maxRows` cells that keeps an image of `width` × `height` pixels in
    /// proportion on cells of `cellWidth` × `cellHeight` pixels.
    ///
    /// It never enlarges past the image's detail: with pixel protocols (`graphics` other than symbols) one image
    /// pixel is at least one screen pixel; with symbols one image pixel at least fills a half cell (a cell shows
    /// about 1 × 2 colour samples). Always at least 1 × 1.
    public static func fitting(
        width: Int, height: Int, maxColumns: Int, maxRows: Int,
        cellWidth: Int = 10, cellHeight: Int = 20,
        graphics: DWTerminalGraphics = .symbols
    ) -> DWTerminalFit {
        let w = Double(max(1, width)), h = Double(max(1, height))
        let cw = Double(max(1, cellWidth)), ch = Double(max(1, cellHeight))
        // Columns and rows that show the image pixel for pixel (or one pixel per half cell for symbols).
        let naturalColumns = graphics == .symbols ? w : w / cw
        var columns = min(Double(max(1, maxColumns)), max(1, naturalColumns.rounded(.up)))
        // rows × ch / (columns × cw) = h / w
        var rows = columns * cw * h / (w * ch)
        if rows > Double(max(1, maxRows)) {
            rows = Double(max(1, maxRows))
            columns = rows * ch * w / (h * cw)
        }
        return DWTerminalFit(columns: max(1, Int(columns.rounded())), rows: max(1, Int(rows.rounded())))
    }
}
