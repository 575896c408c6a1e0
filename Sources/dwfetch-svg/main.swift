// dwfetch-svg: the SVG helper the engine starts for each render (DWSVGRenderer): librsvg in its own process, under
// a CPU budget and a memory limit, killed by its parent past the budget. Not meant to be run by hand.
import DWWebImageProcessing
import Foundation

guard DWSVGRenderer.isHelperInvocation() else {
    FileHandle.standardError.write(Data("dwfetch-svg: the SVG helper of dwfetch; started by the engine only\n".utf8))
    exit(2)
}
exit(DWSVGRenderer.runHelper())
