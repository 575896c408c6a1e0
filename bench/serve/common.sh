# bench/serve/common.sh: sourced by every bench/serve script, on top of bench/lib.sh (ROOT, log, free_port, the
# release build, nginx_up, need_debs) — a release dwfetch, a corpus, nginx as the origin, `dwfetch serve` and thumbor
# instances; everything on 127.0.0.1, stopped on exit.
BENCH_LOG_NAME=serve
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
OUT="$ROOT/bench/out/serve"
CORPUS="$ROOT/bench/corpus/serve"
mkdir -p "$OUT" "$CORPUS"
PIDS=() NGINX_HOMES=()
cleanup() {
    for p in "${PIDS[@]:-}"; do [[ -n "$p" ]] && kill -- "$p" 2>/dev/null || true; done  # -PID: a process group
    for h in "${NGINX_HOMES[@]:-}"; do [[ -n "$h" ]] && nginx_down "$h"; done
    wait 2>/dev/null || true
    rm -rf "$OUT"/cache-* "${NGINX_HOMES[@]:-}"
}
trap cleanup EXIT

build_dwfetch() {
    if [[ -n "${BENCH_DWFETCH:-}" ]]; then  # a prebuilt dwfetch, with dwfetch-serve beside it
        DWFETCH="$(cd "$(dirname "$BENCH_DWFETCH")" && pwd)/$(basename "$BENCH_DWFETCH")"
        [[ -x "$DWFETCH" && -x "$(dirname "$DWFETCH")/dwfetch-serve" ]] || { log "no dwfetch + dwfetch-serve at $DWFETCH"; exit 1; }
        log "using $DWFETCH (not built here)"
        return 0
    fi
    build_release dwfetch  # `dwfetch serve` execs dwfetch-serve, built beside it
    build_release dwfetch-serve
    DWFETCH="$(cd "$ROOT" && swift build -c release --show-bin-path)/dwfetch"
}

# build_jpeg_floor → $OUT/jpeg-floor: jpeg_floor.c (libjpeg's own cost of one cold transform, and with --disk the disk
# cache's file work for it), linked with the cache's own CRC-32C (Sources/CChecksum).
build_jpeg_floor() {
    need_debs cc:gcc /usr/include/jpeglib.h:libjpeg-dev  # scripts/setup.sh installs libjpeg-dev for the build (CJpeg)
    "${CC:-$(command -v cc || command -v clang)}" -O2 -o "$OUT/jpeg-floor" -I "$ROOT/Sources/CChecksum/include" \
        "$ROOT/bench/serve/jpeg_floor.c" "$ROOT/Sources/CChecksum/CChecksum.c" -ljpeg
}

# make_corpus N: N JPEGs of 2048x1536 ("2K"), noisy like photos, made once with Pillow.
make_corpus() {
    python3 - "$CORPUS" "$1" <<'PY'
import os, sys
from PIL import Image, ImageFilter
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    p = os.path.join(d, f"img{i:04d}.jpg")
    if os.path.exists(p): continue
    w, h = 2048, 1536
    g = Image.linear_gradient("L").resize((w, h))
    noise = Image.effect_noise((w, h), 30 + i % 40)
    img = Image.merge("RGB", (g, noise, g.rotate(90 + i).resize((w, h)))).filter(ImageFilter.GaussianBlur(1))
    img.save(p + ".tmp", "JPEG", quality=85)
    os.rename(p + ".tmp", p)
PY
}

# start_nginx DIR → NGINX_PORT, NGINX_PID: nginx serving DIR (the origin, or the static-file anchor), through lib.sh's
# nginx_up with its home in $OUT/nginx-PORT (nginx.conf, nginx.pid, logs); stopped on exit.
start_nginx() {
    local dir="$1" port; port=$(free_port)
    local home="$OUT/nginx-$port"
    rm -rf "$home"
    # /r/<n>/<file> is <file>: distinct source URLs for one file, so a cold benchmark never repeats a request.
    nginx_up "$home" "$port" "root $dir; location /r/ { rewrite ^/r/[0-9]+/(.*)\$ /\$1 break; }" \
        "keepalive_requests 100000; types { image/jpeg jpg; image/png png; image/webp webp; }"
    NGINX_HOMES+=("$home")
    NGINX_PORT=$port
    NGINX_PID=$(cat "$home/nginx.pid")
}

# start_serve ARGS... → SERVE_PORT, SERVE_PID: a dwfetch serve on a free port with its own cache dir, /metrics on
# another free port (see metrics_of), and a queue long enough that load tests measure throughput, not 503s.
start_serve() {
    local port; port=$(free_port)
    local mport; mport=$(free_port)
    local cache="$OUT/cache-$port"
    rm -rf "$cache"
    echo "$mport" > "$OUT/metrics-port-$port"
    "$DWFETCH" serve --port "$port" --cache-dir "$cache" --allow-network 127.0.0.1/32 --queue 1024 \
        --metrics-bind "127.0.0.1:$mport" "$@" > "$OUT/serve-$port.log" 2>&1 &
    SERVE_PID=$!
    PIDS+=($SERVE_PID)
    SERVE_PORT=$port
    wait_port "$port"
}

# ensure_thumbor → THUMBOR: thumbor 7.8.0 from PyPI in its own venv under bench/out/serve, or scripts/setup.sh's
# .venv-thumbor (empty if it cannot be installed here; the rows without it say so).
ensure_thumbor() {
    THUMBOR="$OUT/thumbor-venv/bin/thumbor"
    # scripts/setup.sh's venv (thumbor 7.8.0 for the thumbor dialect's tests), when there is one
    [[ -x "$THUMBOR" || ! -x "$ROOT/.venv-thumbor/bin/thumbor" ]] || THUMBOR="$ROOT/.venv-thumbor/bin/thumbor"
    if [[ ! -x "$THUMBOR" ]]; then
        log "installing thumbor 7.8.0 from PyPI into $OUT/thumbor-venv"
        python3 -m venv "$OUT/thumbor-venv" && "$OUT/thumbor-venv/bin/pip" install -q thumbor==7.8.0 >"$OUT/thumbor-install.log" 2>&1 \
            || log "thumbor could not be installed (see $OUT/thumbor-install.log)"
    fi
    [[ -x "$THUMBOR" ]] || THUMBOR=""
}

# start_thumbor → THUMBOR_PORTS (comma-separated), THUMBOR_PORT (the first), THUMBOR_PIDS: thumbor with the HTTP
# loader, no storage, quality 80, as many single-process instances as cores (BENCH_THUMBOR_PROCESSES), each on a port
# of its own, as thumbor is deployed behind a balancer: load.py spreads its clients over the ports round-robin. One
# `--processes N` thumbor instead shares one listening socket among N forked workers, and the kernel hands each
# keep-alive connection to whichever accepts first: with 2 clients one worker often took both, and thumbor ran on
# one core. Each instance runs in a process group of its own (setsid), ended whole by stop_thumbor.
start_thumbor() {
    local n="${BENCH_THUMBOR_PROCESSES:-$(nproc)}" i port ports=()
    cat > "$OUT/thumbor.conf" <<CONF
LOADER = 'thumbor.loaders.http_loader'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
ALLOW_UNSAFE_URL = True
QUALITY = 80
MAX_WIDTH = 0
MAX_HEIGHT = 0
CONF
    THUMBOR_PIDS=""
    for i in $(seq 1 "$n"); do
        port=$(free_port)
        setsid "$THUMBOR" --port "$port" --ip 127.0.0.1 --conf "$OUT/thumbor.conf" --processes 1 -l error \
            > "$OUT/thumbor-$i.log" 2>&1 &
        THUMBOR_PIDS="$THUMBOR_PIDS $!"; PIDS+=(-"$!")
        ports+=("$port")
        wait_port "$port"
    done
    THUMBOR_PORT=${ports[0]}
    THUMBOR_PORTS=$(IFS=,; echo "${ports[*]}")
}
stop_thumbor() {
    local p
    for p in $THUMBOR_PIDS; do kill -- -"$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done
}
# thumbor_pids: every process of the running thumbor instances.
thumbor_pids() { local p; for p in $THUMBOR_PIDS; do tree_pids "$p"; done | tr '\n' ' '; }

# tree_pids PID: PID and its children (thumbor's master and workers).
tree_pids() { echo "$1" $(pgrep -P "$1" | tr '\n' ' '); }
# cpu_seconds PID...: user + system CPU seconds of the processes, from /proc/PID/stat.
cpu_seconds() {
    local ticks=0 p
    for p in "$@"; do ticks=$(( ticks + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0) )); done
    python3 -c "import os; print($ticks / os.sysconf('SC_CLK_TCK'))"
}
# hwm_sum_kib PID...: the sum of the processes' peak RSS.
hwm_sum_kib() { local s=0 p; for p in "$@"; do s=$(( s + $(hwm_kib "$p" 2>/dev/null || echo 0) )); done; echo "$s"; }

# metrics_of PORT: the Prometheus text of the serve started on PORT (its --metrics-bind listener).
metrics_of() {
    curl -sf "http://127.0.0.1:$(cat "$OUT/metrics-port-$1")/metrics"
}

wait_port() {
    for _ in $(seq 1 200); do
        (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0
        sleep 0.05
    done
    log "nothing listens on $1"; return 1
}

rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
hwm_kib() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }

# plain_path OPTIONS URL [EXT]: an unsigned imgproxy path for URL.
plain_path() {
    local enc; enc=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$2")
    printf '/insecure/%s/plain/%s%s' "$1" "$enc" "${3:+@$3}"
}
