// DWTerminalDetection: which graphics protocol and colours a terminal supports, read from its environment.

extension DWTerminalFormat {
    /// The best format the terminal described by `environment` (a process environment: `TERM`, `TERM_PROGRAM`,
    /// `COLORTERM`, `KITTY_WINDOW_ID`, `WEZTERM_*`, `ITERM_SESSION_ID`, `LC_TERMINAL`, `TMUX`, `NO_COLOR`…) can
    /// show. A pure function: it reads nothing else, so any environment can be tested.
    ///
    /// - Pixel protocols: kitty (`KITTY_WINDOW_ID`, `TERM=xterm-kitty`, Ghostty), iTerm2 inline images (iTerm2 by
    ///   `TERM_PROGRAM`, `ITERM_SESSION_ID` or `LC_TERMINAL`; WezTerm; mintty), sixels (foot, mlterm, contour,
    ///   `TERM` naming sixel support); never inside tmux or screen (`TMUX`, `STY`, `TERM=tmux*|screen*`), which
    ///   would need passthrough, nor when `NO_COLOR` is set.
    /// - Colours for symbols: `NO_COLOR` (set and not empty, as no-color.org says) → ``DWTerminalColors/none``;
    ///   `COLORTERM=truecolor|24bit`, a `TERM` ending in `-direct`/`truecolor`, or a terminal known to have 24-bit
    ///   colour → ``DWTerminalColors/trueColor``; a `TERM` with `256color` → ``DWTerminalColors/palette256``;
    ///   `TERM=dumb` → ``DWTerminalColors/none``; anything else → ``DWTerminalColors/palette16``.
    public static func detect(environment: [String: String]) -> DWTerminalFormat {
        let term = (environment["TERM"] ?? "").lowercased()
        let program = (environment["TERM_PROGRAM"] ?? "").lowercased()
        let lcTerminal = (environment["LC_TERMINAL"] ?? "").lowercased()
        let colorterm = (environment["COLORTERM"] ?? "").lowercased()
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        func has(_ name: String) -> Bool { environment[name].map { !$0.isEmpty } ?? false }

        let multiplexed =
            has("TMUX") || has("STY") || term.hasPrefix("tmux") || term.hasPrefix("screen")
            || program == "tmux"
        let kitty = has("KITTY_WINDOW_ID") || term == "xterm-kitty" || program == "ghostty" || term == "xterm-ghostty"
        let wezterm = program == "wezterm" || environment.keys.contains { $0.hasPrefix("WEZTERM_") }
        let iterm = program == "iterm.app" || has("ITERM_SESSION_ID") || lcTerminal == "iterm2"
        let mintty = program == "mintty" || term.hasPrefix("mintty")
        let sixel =
            term.hasPrefix("foot") || term.hasPrefix("mlterm") || term.hasPrefix("contour")
            || term.contains("sixel") || program == "contour"

        var graphics = DWTerminalGraphics.symbols
        if !multiplexed && !noColor {
            if kitty {
                graphics = .kitty
            } else if iterm || wezterm || mintty {
                graphics = .iterm
            } else if sixel {
                graphics = .sixels
            }
        }

        let colors: DWTerminalColors
        if noColor || term == "dumb" {
            colors = .none
        } else if colorterm == "truecolor" || colorterm == "24bit" || term.hasSuffix("-direct")
            || term.contains("truecolor") || term.contains("24bit")
            || kitty || wezterm || iterm || mintty || program == "vscode" || term.hasPrefix("foot")
            || term.hasPrefix("alacritty") || has("KONSOLE_VERSION") || has("VTE_VERSION")
        {
            colors = .trueColor
        } else if term.contains("256") {
            colors = .palette256
        } else {
            colors = .palette16
        }
        return DWTerminalFormat(graphics: graphics, colors: colors)
    }
}
