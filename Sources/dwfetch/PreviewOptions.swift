// PreviewOptions: dwfetch's --preview flags, as their own argument group.
import ArgumentParser
import DWWebImagePreview

/// `--preview`, `--preview-loop`, `--preview-format`.
struct PreviewOptions: ParsableArguments {
    /// The graphics protocols `--preview-format` accepts.
    enum Format: String, CaseIterable, ExpressibleByArgument {
        case symbols, sixels, kitty, iterm

        var graphics: DWTerminalGraphics {
            switch self {
            case .symbols: return .symbols
            case .sixels: return .sixels
            case .kitty: return .kitty
            case .iterm: return .iterm
            }
        }
    }

    @Flag(name: .customLong("preview"), help: ArgumentHelp(
        "Draw each image in the terminal after its line (animated GIFs play for up to 3 s); nothing is drawn "
            + "when stdout is not a terminal."))
    var enabled = false

    @Flag(name: .customLong("preview-loop"), help: "With --preview: play animations as often as the file says (Ctrl-C stops).")
    var loop = false

    @Option(name: .customLong("preview-format"), help: ArgumentHelp(
        "With --preview: symbols, sixels, kitty or iterm (default: detected from TERM, TERM_PROGRAM, COLORTERM…).",
        valueName: "FMT"))
    var format: Format?

    /// Whether previews were asked for (`--preview-loop` and `--preview-format` imply `--preview`).
    var requested: Bool { enabled || loop || format != nil }
}
