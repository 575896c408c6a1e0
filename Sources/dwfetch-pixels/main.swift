// dwfetch-pixels: the dwfetch with the pixel engines — libvips for the pixel flags and --verify, libchafa for
// --preview, the loopback test server for --demo. The thin dwfetch execs it for such runs (same arguments); it parses
// the same argument tree, so it can also be run directly.
import DWFetchCLI

let engines = DWFetchEngines(pixels: { PixelStage(options: $0) }, preview: { Previewer(options: $0) })
DWFetchMain.run(engines: DWFetchEngines(pixels: engines.pixels, preview: engines.preview,
                                        demo: { try Demo(command: $0, engines: engines).run() }))
