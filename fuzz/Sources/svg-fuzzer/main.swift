// The fuzzer's entry point: the SVG helper when the engine starts it (this binary is its own helper, so the render
// runs under AddressSanitizer too), else libFuzzer's driver over LLVMFuzzerTestOneInput.
import CFuzzerDriver
import DWWebImageProcessing
import Foundation

if DWSVGRenderer.isHelperInvocation() { exit(DWSVGRenderer.runHelper()) }
DWSVGRenderer.helperPath = "/proc/self/exe"
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzTestOneInput(data, size) })
