# Sourced by fuzz/run*.sh. run_fuzzer TARGET CORPUS SUFFIX SECONDS [libFuzzer options…]: builds TARGET-fuzzer
# (fuzz/build.sh), then fuzzes it for SECONDS, one job, niced. By hand, from fuzz/CORPUS into fuzz/workSUFFIX/corpus,
# crashes to fuzz/artifactsSUFFIX/ (gitignored). With FUZZ_WORK_DIR=DIR (CI: fuzz/run-ci.sh) the seeds are copied to
# DIR/corpus and fuzzed from there, crashes go to DIR/artifacts/, and nothing is written under fuzz/. A unit slower
# than FUZZ_UNIT_TIMEOUT seconds (default 20) is a hang. libFuzzer's per-unit leak check is off (-detect_leaks=0):
# it reports the targets' own global seed images, which stay reachable from a Swift global for the whole run, as
# leaked once a unit allocates the runtime's lazy metadata (so is the exit-time check, ASAN_OPTIONS); ASan's memory
# errors stay fatal.
run_fuzzer() {
    local target=$1 corpus=$2 suffix=$3 duration=$4 work artifacts
    shift 4
    local here
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    [[ -n "${FUZZ_BUILT:-}" ]] || "$here/build.sh" "$target"  # fuzz/run-ci.sh builds every target first
    local seeds=()
    if [[ -n "${FUZZ_WORK_DIR:-}" ]]; then
        work="$FUZZ_WORK_DIR" artifacts="$FUZZ_WORK_DIR/artifacts/"
        mkdir -p "$work/corpus" "$artifacts"
        cp -R "$here/$corpus/." "$work/corpus/"
    else
        work="$here/work$suffix" artifacts="$here/artifacts$suffix/" seeds=("$here/$corpus")
        mkdir -p "$work/corpus" "$artifacts"
    fi
    cd "$work"
    ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
        exec nice -n 10 "$here/build/$target-fuzzer" "$work/corpus" "${seeds[@]}" \
        -max_total_time="$duration" -jobs=1 -workers=1 -rss_limit_mb=2048 -timeout="${FUZZ_UNIT_TIMEOUT:-20}" -detect_leaks=0 \
        -artifact_prefix="$artifacts" -print_final_stats=1 "$@"
}
