// DWTerminalFormat: how a picture is drawn in a terminal — the graphics protocol and the colours.

/// The way pixels reach the screen.
public enum DWTerminalGraphics: String, Sendable, CaseIterable, Hashable {
    /// Unicode block and border symbols in coloured cells: works in every terminal (and over tmux, screen, SSH).
    case symbols
    /// DEC sixel graphics (xterm -ti vt340, foot, mlterm, WezTerm, Windows Terminal…).
    case sixels
    /// The kitty graphics protocol (kitty, Ghostty, WezTerm, Konsole).
    case kitty
    /// iTerm2's inline images (iTerm2, WezTerm, mintty).
    case iterm
}

/// The colours symbols are drawn with (pixel protocols always carry full colour).
public enum DWTerminalColors: String, Sendable, CaseIterable, Hashable {
    /// 24-bit colour: `ESC[38;2;R;G;Bm` / `ESC[48;2;R;G;Bm`.
    case trueColor
    /// The xterm 256-colour palette: `ESC[38;5;Nm`.
    case palette256
    /// The 16 ANSI colours.
    case palette16
    /// No colour sequences at all: the picture is drawn with symbols in the default colours (`NO_COLOR`).
    case none
}

/// A graphics protocol with a colour depth: everything a renderer needs to know about the terminal's abilities.
public struct DWTerminalFormat: Sendable, Hashable, CustomStringConvertible {
    /// How pixels are drawn.
    public var graphics: DWTerminalGraphics
    /// The colours symbols use (ignored by the pixel protocols).
    public var colors: DWTerminalColors

    /// A format: `graphics` with `colors`.
    public init(graphics: DWTerminalGraphics, colors: DWTerminalColors = .trueColor) {
        self.graphics = graphics
        self.colors = colors
    }

    /// Symbols in 24-bit colour.
    public static let symbols = DWTerminalFormat(graphics: .symbols, colors: .trueColor)

    /// "symbols/trueColor", "kitty", …
    public var description: String {
        graphics == .symbols ? "symbols/\(colors.rawValue)" : graphics.rawValue
    }
}
