// dwfetch-serve: the dwfetch that runs `dwfetch serve` and `dwfetch warm` (Hummingbird, libvips). The thin dwfetch
// execs it for them; it parses the same argument tree, so it can also be run directly.
import DWFetchCLI
import DWFetchServe

DWFetchMain.run(engines: .serveEngines)
