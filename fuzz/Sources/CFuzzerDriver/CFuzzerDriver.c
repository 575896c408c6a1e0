// Header-only on purpose: LLVMFuzzerRunDriver lives in libclang_rt.fuzzer. SwiftPM needs one C file in a C target.
#include "CFuzzerDriver.h"
