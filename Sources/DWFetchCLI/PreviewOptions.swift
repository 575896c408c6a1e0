// PreviewOptions: dwfetch's --preview flags, as their own argument group.
import ArgumentParser

/// `--preview`, `--preview-loop`, `--preview-format` (drawn by dwfetch-pixels, on libchafa).
package struct PreviewOptions: ParsableArguments {
    /// The graphics protocols `--preview-format` accepts.
    package enum Format: String, CaseIterable, ExpressibleByArgument, Sendable {
        case symbols, sixels, kitty, iterm
    }

    /// Every flag at its default.
    package init() {}

    @Flag(
        name: .customLong("preview"),
        help: ArgumentHelp(
            "Draw each image in the terminal after its line (animated GIFs play for up to 3 s); nothing is drawn "
                + "when stdout is not a terminal."))
    package var enabled = false

    @Flag(
        name: .customLong("preview-loop"),
        help: "With --preview: play animations as often as the file says (Ctrl-C stops).")
    package var loop = false

    @Option(
        name: .customLong("preview-format"),
        help: ArgumentHelp(
            "With --preview: symbols, sixels, kitty or iterm (default: detected from TERM, TERM_PROGRAM, COLORTERM…).",
            valueName: "FMT"))
    package var format: Format?

    /// Whether previews were asked for (`--preview-loop` and `--preview-format` imply `--preview`).
    package var requested: Bool { enabled || loop || format != nil }
}
