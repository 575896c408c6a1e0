// dwfetch-svg: the SVG helper the engine starts for each render (DWSVGRenderer): librsvg in its own process, under
// a CPU budget and a memory limit, killed by its parent past the budget; and the encode helper (DWIdleEncoder), a
// put-off AVIF or JPEG XL saved at SCHED_IDLE. Not meant to be run by hand.
import DWWebImageProcessing
import Foundation

if DWIdleEncoder.isHelperInvocation() { exit(DWIdleEncoder.runHelper()) }
guard DWSVGRenderer.isHelperInvocation() else {
    FileHandle.standardError.write(Data("dwfetch-svg: the SVG helper of dwfetch; started by the engine only\n".utf8))
    exit(2)
}
exit(DWSVGRenderer.runHelper())
