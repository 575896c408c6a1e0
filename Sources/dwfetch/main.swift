// dwfetch: plain fetches on the core alone (libcurl, giflib, zlib). Pixel flags, --preview and --demo continue in
// dwfetch-pixels, `serve` in dwfetch-serve (execv, same arguments): see docs/design.md, "Executables".
import DWFetchCLI

DWFetchMain.run(engines: .none)
