// Engines: the seams where the engine executables plug into the shared CLI — the pixel stage (libvips), the
// terminal preview (libchafa), the demo (the loopback test server) and `serve` (Hummingbird). The thin dwfetch
// registers none of them and hands such runs over to the executable that has them (``EngineHandoff``).
import DWWebImage

/// The original's facts, for the JSON line of a processed image.
package struct SourceFacts: Sendable {
    package let format: DWImageFormat
    package let width: Int
    package let height: Int
    /// The variant's identifier (its plan's, `DWImageProcessors.identifier(of:)`).
    package let variant: String

    /// Facts of an original as the pixel stage saw it.
    package init(format: DWImageFormat, width: Int, height: Int, variant: String) {
        self.format = format
        self.width = width
        self.height = height
        self.variant = variant
    }
}

/// What the pixel flags add to a fetch. Called from the fetch runner: ``request(_:)`` on the main thread while
/// requests are queued, ``finish(_:url:cache:then:)`` on the library's callback queue; `then` may be called
/// on any thread (the runner hops to its own queue).
package protocol FetchPixelStage: Sendable {
    /// Whether the output is a new image (named with its format's extension).
    var isProcessing: Bool { get }
    /// The request options for one URL.
    func request(_ base: DWWebImageOptions) -> DWWebImageOptions
    /// Passes the result on (verified, or with the original's facts for a processed image).
    func finish(
        _ result: Result<DWImage, DWWebImageError>, url: String, cache: DWWebImageCache,
        then: @escaping @Sendable (Result<DWImage, DWWebImageError>, SourceFacts?) -> Void)
}

/// No pixel flags: results pass through unchanged, on the caller's thread.
package struct PassThroughPixelStage: FetchPixelStage {
    /// A stage that changes nothing.
    package init() {}
    package var isProcessing: Bool { false }
    package func request(_ base: DWWebImageOptions) -> DWWebImageOptions { base }
    package func finish(
        _ result: Result<DWImage, DWWebImageError>, url: String, cache: DWWebImageCache,
        then: @escaping @Sendable (Result<DWImage, DWWebImageError>, SourceFacts?) -> Void
    ) {
        then(result, nil)
    }
}

/// `--preview`: pictures after their lines. ``expect(_:)`` comes from the thread that runs the fetch, ``keep(_:for:)``
/// from the fetch runner's output queue, ``show(url:)`` from its display queue (one picture at a time, in input
/// order, while other results are still handled) and ``interrupt()`` from the signal queue. A class (a copy of the
/// runner's optional previewer is then one retain, not an existential's value copy, several times an image).
package protocol FetchPreview: AnyObject, Sendable {
    /// The URLs in input order (a URL named twice is drawn twice).
    func expect(_ urls: [String])
    /// Keeps `image` until its line is printed.
    func keep(_ image: DWImage, for url: String)
    /// Draws the image of `url` after its line; returns when it is on screen or its animation is over.
    func show(url: String)
    /// A signal: stop any animation, restore the terminal (cursor, attributes, graphics) and draw nothing more.
    func interrupt()
}

/// The engines an executable links. Set once in each executable's `main.swift`, before parsing.
package struct DWFetchEngines: Sendable {
    /// Makes the pixel stage for the pixel flags (nil: this executable has no libvips).
    package var pixels: (@Sendable (ProcessingOptions) -> any FetchPixelStage)?
    /// Makes the previewer, or nil when it cannot draw (stdout not a terminal); nil: no libchafa here.
    package var preview: (@Sendable (PreviewOptions) -> (any FetchPreview)?)?
    /// Runs `--demo` and returns its exit status (nil: no demo server here).
    package var demo: (@Sendable (DWFetch) throws -> Int32)?
    /// Runs `dwfetch serve` until it stops, returning its exit status (nil: no server here).
    package var serve: (@Sendable (ServeOptions) throws -> Int32)?
    /// Runs `dwfetch warm`, returning its exit status (nil: no server here).
    package var warm: (@Sendable (WarmCommand) throws -> Int32)?

    /// The thin dwfetch: no engine.
    package static let none = DWFetchEngines()

    /// Engines as given.
    package init(
        pixels: (@Sendable (ProcessingOptions) -> any FetchPixelStage)? = nil,
        preview: (@Sendable (PreviewOptions) -> (any FetchPreview)?)? = nil,
        demo: (@Sendable (DWFetch) throws -> Int32)? = nil,
        serve: (@Sendable (ServeOptions) throws -> Int32)? = nil,
        warm: (@Sendable (WarmCommand) throws -> Int32)? = nil
    ) {
        self.warm = warm
        self.pixels = pixels
        self.preview = preview
        self.demo = demo
        self.serve = serve
    }
}
