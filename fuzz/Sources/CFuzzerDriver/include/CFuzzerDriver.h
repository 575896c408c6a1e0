// libFuzzer's driver, declared for Swift. SwiftPM links an executable's `main` to the module's own entry point
// (`--defsym main=<module>_main`), which hides the `main` libFuzzer brings; so each fuzz target's main.swift hands
// its arguments and its input callback to this function, as libFuzzer documents for programs with their own main.
#ifndef CFUZZERDRIVER_H
#define CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// Parses libFuzzer's flags in argv and runs the fuzzing loop (or the given inputs) with `callback`; returns the
/// process's exit status. Defined in libclang_rt.fuzzer, linked by `-sanitize=fuzzer`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
