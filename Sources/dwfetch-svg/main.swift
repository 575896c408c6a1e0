// dwfetch-svg: the helper executable the engine starts (DWHelperProcess): the SVG helper, one librsvg render under
// a CPU budget and a memory limit, killed by its parent past the budget (DWSVGRenderer); and the encode helper, a
// put-off AVIF or JPEG XL saved at SCHED_IDLE (DWIdleEncoder). Not meant to be run by hand.
import DWWebImageProcessing
import Foundation

if DWIdleEncoder.isHelperInvocation() { exit(DWIdleEncoder.runHelper()) }
guard DWSVGRenderer.isHelperInvocation() else {
    FileHandle.standardError.write(
        Data("dwfetch-svg: the SVG and encode helper of dwfetch; started by the engine only\n".utf8))
    exit(2)
}
exit(DWSVGRenderer.runHelper())
