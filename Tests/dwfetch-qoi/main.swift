// dwfetch-qoi: dwfetch with the QOI test codec registered and every engine in this one process, the executable an
// app embedding dwfetch with its own codec builds: nothing is handed to a sibling executable, which would not know
// QOI. Built for the tests only (DWFetchTests' QOIBinaryTests); not a product.
import DWFetchCLI
import DWFetchPixels
import DWFetchServe
import DWTestCodecs

QOICodec.register()
let pixels = DWFetchEngines.pixelEngines, serving = DWFetchEngines.serveEngines
DWFetchMain.run(
    engines: DWFetchEngines(pixels: pixels.pixels, preview: pixels.preview, serve: serving.serve, warm: serving.warm))
