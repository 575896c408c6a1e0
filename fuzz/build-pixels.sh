#!/usr/bin/env bash
# Builds fuzz/build/pixels-fuzzer (the processing path on libvips); see fuzz/build.sh.
exec "$(dirname "$0")/build.sh" pixels
