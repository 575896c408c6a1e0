// DWFetchEngines+Pixels: the engines dwfetch-pixels links — libvips for the pixel flags and --verify, libchafa for
// --preview — as one value its main and the demo executable share.
import DWFetchCLI

extension DWFetchEngines {
    /// The pixel stage (libvips) and the previewer (libchafa); no demo and no server.
    package static let pixelEngines = DWFetchEngines(
        pixels: { PixelStage(options: $0) },
        preview: { Previewer(options: $0) })
}
