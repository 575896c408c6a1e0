// dwfetch-pixels: the dwfetch with the pixel engines — libvips for the pixel flags and --verify, libchafa for
// --preview. The thin dwfetch execs it for such runs (same arguments); it parses the same argument tree, so it can
// also be run directly.
import DWFetchCLI
import DWFetchPixels

DWFetchMain.run(engines: .pixelEngines)
