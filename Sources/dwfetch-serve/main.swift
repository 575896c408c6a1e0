// dwfetch-serve: the dwfetch that runs `dwfetch serve` (Hummingbird, libvips). The thin dwfetch execs it for `serve`;
// it parses the same argument tree, so it can also be run directly.
import DWFetchCLI

DWFetchMain.run(engines: DWFetchEngines(serve: { try ServeRunner.run($0) }, warm: { try WarmRunner.run($0) }))
