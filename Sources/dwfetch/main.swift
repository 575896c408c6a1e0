// dwfetch: plain fetches on the core alone (libcurl, giflib, zlib). Pixel flags and --preview continue in
// dwfetch-pixels, --demo in dwfetch-demo, `serve` in dwfetch-serve (execv, same arguments): see docs/design.md,
// "Executables".
import DWFetchCLI

DWFetchMain.run(engines: .none)
