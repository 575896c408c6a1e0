// Previewer: dwfetch --preview — draws each fetched image in the terminal after its result line; animated GIFs,
// APNGs and WebPs play through DWAnimatedImagePlayer; Ctrl-C, SIGTERM and SIGHUP stop playback and leave the terminal
// clean.
import DWFetchCLI
import DWLocking
import DWWebImage
import DWWebImagePreview
import DWWebImageProcessing
import DWFileIO
import Foundation

/// Draws images on stdout when it is a terminal.
///
/// ``show(url:)`` runs on the thread that prints the result lines (the fetch runner's display queue) and returns when
/// the picture is drawn or the animation is over, so lines and pictures keep input order; downloads, and the
/// handling of the results that arrive, go on meanwhile. One lock (``state``) guards the kept images, the player on
/// screen and the interrupted flag.
final class Previewer: FetchPreview {
    /// How long an animation plays without `--preview-loop`.
    static let playLimit: TimeInterval = 3

    private let renderer: DWTerminalRenderer
    private let maxColumns: Int
    private let maxRows: Int
    private let loop: Bool
    /// Frames are delivered here (not main: dwfetch never drains the main queue).
    private let frameQueue = DispatchQueue(label: "dwfetch.preview.frames")
    private let state = DWLock(State())

    private struct State {
        /// Images waiting for their line, and how many more lines name each URL.
        var images: [String: (image: DWImage, mentions: Int)] = [:]
        var mentions: [String: Int] = [:]
        var player: DWAnimatedImagePlayer?
        var interrupted = false
    }

    /// Said at most once per process (the demo makes two runners).
    private static let noted = DWLock(false)

    /// A previewer for `options`, or nil when previews are off or cannot be drawn (stdout is not a terminal: a
    /// note on stderr says so, once).
    init?(options: PreviewOptions, environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard options.requested else { return nil }
        guard isatty(STDOUT_FILENO) == 1, let size = DWTerminalSize.current(fileDescriptor: STDOUT_FILENO) else {
            let first = Self.noted.withLock { noted -> Bool in
                defer { noted = true }; return !noted
            }
            if first {
                StandardStream.error.write("dwfetch: --preview draws nothing: stdout is not a terminal\n")
            }
            return nil
        }
        var format = DWTerminalFormat.detect(environment: environment)
        if let forced = options.format.map(Self.graphics) { format.graphics = forced }
        let cell = size.cellSize
        renderer = DWTerminalRenderer(format: format, cellWidth: cell.width, cellHeight: cell.height)
        // One column spare (no auto-wrap surprises); room for the result line above and a line below.
        maxColumns = max(1, size.columns - 1)
        maxRows = max(1, min(size.rows - 2, size.rows * 3 / 4))
        loop = options.loop
    }

    /// The URLs in input order (a URL named twice is drawn twice).
    func expect(_ urls: [String]) {
        state.withLock { s in for url in urls { s.mentions[url, default: 0] += 1 } }
    }

    /// Keeps `image` until its line is printed.
    func keep(_ image: DWImage, for url: String) {
        state.withLock { s in
            guard let mentions = s.mentions[url], mentions > 0 else { return }
            s.images[url] = (image, mentions)
        }
    }

    /// Draws the image fetched for `url` (nothing if it failed), after its line; returns when it is on screen or
    /// its animation is over.
    func show(url: String) {
        let image = state.withLock { s -> DWImage? in
            guard !s.interrupted, let entry = s.images[url] else { return nil }
            if entry.mentions <= 1 { s.images[url] = nil } else { s.images[url] = (entry.image, entry.mentions - 1) }
            return entry.image
        }
        guard let image else { return }
        if image.isAnimated, let animation = Self.animation(of: image) {
            play(animation)
            return
        }
        do {
            let picture = try renderer.render(image, maxColumns: maxColumns, maxRows: maxRows)
            drawStill(rows: picture.rows, picture.text)
        } catch {
            StandardStream.error.write("dwfetch: no preview: \(error.message)\n")
        }
    }

    /// A signal (Ctrl-C, SIGTERM, SIGHUP), on the signal queue: stops the animation on screen (its cleanup still runs
    /// on the output queue: kitty/iTerm frames deleted, attributes reset, cursor shown) and draws nothing more.
    func interrupt() {
        let player = state.withLock { s -> DWAnimatedImagePlayer? in
            s.interrupted = true
            return s.player
        }
        player?.stop()
    }

    // MARK: - Drawing

    /// Reserves `rows` lines below the cursor (scrolling now, so drawing never scrolls), then lets `body` draw
    /// pictures there, each from the same saved position (DECSC/DECRC); leaves the cursor at column 0 below them,
    /// attributes reset and the cursor shown. The line below the pictures exists, so a sixel that moves the cursor
    /// past its last row does not scroll either.
    private func draw(
        rows: Int, hideCursor: Bool = false,
        _ body: (_ drawFrame: @escaping @Sendable (String) -> Void) -> Void
    ) {
        write(String(repeating: "\n", count: rows) + "\u{1B}[\(rows)A\r\u{1B}7" + (hideCursor ? "\u{1B}[?25l" : ""))
        body { text in Self.writeOut("\u{1B}8" + text + "\u{1B}[0m") }
        write("\u{1B}8\u{1B}[\(rows)B\r\u{1B}[0m\u{1B}[?25h")
    }

    private func drawStill(rows: Int, _ text: String) {
        draw(rows: rows) { drawFrame in drawFrame(text) }
    }

    /// The frames of an animated GIF, APNG or WebP (WebP and APNG through DWWebImageProcessing's decoders); nil
    /// when they cannot be read (the first frame is then drawn as a still).
    private static func animation(of image: DWImage) -> DWAnimatedImage? {
        DWImageProcessing.registerAnimationDecoders()
        return image.animatedImage()
    }

    /// Plays an animation in place: its own delays and, with `--preview-loop`, its own loop count; otherwise as many
    /// whole plays as fit in ``playLimit`` (at least one, cut at the limit if a single play is longer).
    private func play(_ animation: DWAnimatedImage) {
        let size = renderer.fit(
            width: animation.width, height: animation.height, maxColumns: maxColumns, maxRows: maxRows)
        var loopMode = DWAnimatedImagePlayer.LoopMode.browser
        var limit: TimeInterval?
        if !loop {
            let filePlays = DWAnimatedImagePlayer(animation, loopMode: .browser, queue: frameQueue).totalPlays
            let fitting = max(1, Int(Self.playLimit / max(animation.duration, 0.01)))
            loopMode = .count(filePlays == 0 ? fitting : min(filePlays, fitting))
            if animation.duration > Self.playLimit { limit = Self.playLimit }
        }
        let player = DWAnimatedImagePlayer(animation, loopMode: loopMode, queue: frameQueue)
        let renderer = self.renderer
        let done = DispatchSemaphore(value: 0)
        draw(rows: size.rows, hideCursor: true) { drawFrame in
            // kitty keeps every image it is sent: each frame first deletes (and frees) the one it replaces.
            let replace = renderer.format.graphics == .kitty ? Self.kittyDeleteAtCursor : ""
            player.play(
                frameHandler: { frame in
                    drawFrame(replace + renderer.render(frame.bitmap, columns: size.columns, rows: size.rows).text)
                }, completion: { _ in done.signal() })
            // Registered once playing, so an interrupt either sees this player or has already set the flag.
            let interrupted = state.withLock { s -> Bool in
                if !s.interrupted { s.player = player }
                return s.interrupted
            }
            if interrupted { player.stop() }
            if let limit {
                frameQueue.asyncAfter(deadline: .now() + limit) { player.stop() }
            }
            // The completion runs on the frame queue after any frame being drawn: nothing draws once it signals.
            done.wait()
            if state.withLock({ $0.interrupted }) { eraseInterruptedFrame() }
        }
        state.withLock { $0.player = nil }
    }

    /// kitty's "delete the placements at the cursor and free their images" command.
    static let kittyDeleteAtCursor = "\u{1B}_Ga=d,d=C\u{1B}\\"

    /// After a signal, an animation cut mid-play is taken off the screen where its frames are images of their own:
    /// kitty's are deleted and freed, iTerm's cells erased (symbols and sixels are text cells and stay, as drawn).
    private func eraseInterruptedFrame() {
        switch renderer.format.graphics {
        case .kitty: write("\u{1B}8" + Self.kittyDeleteAtCursor)
        case .iterm: write("\u{1B}8\u{1B}[J")
        default: break
        }
    }

    private func write(_ text: String) { Self.writeOut(text) }

    private static func writeOut(_ text: String) {
        StandardStream.writeOutputOrEnd(text)
    }

    /// The renderer's graphics for a `--preview-format` name.
    private static func graphics(_ format: PreviewOptions.Format) -> DWTerminalGraphics {
        switch format {
        case .symbols: return .symbols
        case .sixels: return .sixels
        case .kitty: return .kitty
        case .iterm: return .iterm
        }
    }
}
