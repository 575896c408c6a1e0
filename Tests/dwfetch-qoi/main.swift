// dwfetch-qoi: dwfetch with the QOI test codec registered and every engine in this one process, the executable an
// app embedding dwfetch with its own codec builds. The engines' sources are dwfetch-pixels' and dwfetch-serve's own
// (pixels/ and serve/ link to their folders): nothing is handed to a sibling executable, which would not know QOI.
// Built for the tests only (DWFetchTests' QOIBinaryTests); not a product.
import DWFetchCLI
import DWTestCodecs

QOICodec.register()
let engines = DWFetchEngines(pixels: { PixelStage(options: $0) }, preview: { Previewer(options: $0) })
DWFetchMain.run(
    engines: DWFetchEngines(
        pixels: engines.pixels, preview: engines.preview,
        demo: { try Demo(command: $0, engines: engines).run() },
        serve: { try ServeRunner.run($0) }))
