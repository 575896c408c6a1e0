// dwfetch-demo: `dwfetch --demo` — the pixel engines plus a loopback server with sample images (DWTestServer).
// Not a product: the test server never ships in dwfetch, dwfetch-pixels or dwfetch-serve; `dwfetch --demo` execs
// this executable when it is built beside them (scripts/demo.sh builds it).
import DWFetchCLI
import DWFetchPixels

let engines = DWFetchEngines.pixelEngines
DWFetchMain.run(
    engines: DWFetchEngines(
        pixels: engines.pixels, preview: engines.preview,
        demo: { try Demo(command: $0, engines: engines).run() }))
