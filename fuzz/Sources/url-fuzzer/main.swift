// The fuzzer's entry point: libFuzzer's driver over LLVMFuzzerTestOneInput (see CFuzzerDriver.h for why not
// libFuzzer's own main).
import CFuzzerDriver
import Foundation

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzTestOneInput(data, size) })
