# bench/lib.sh: what several bench scripts need, sourced (`. "$ROOT/bench/lib.sh"`), never run.
#
# Sets ROOT (the repository), BENCH (bench/), OUT (bench/out) and puts the Swift toolchain on PATH. A script sets
# BENCH_LOG_NAME before sourcing to prefix its log and die lines ("[NAME] ...").
#   log MSG / die MSG          a line on stderr (die exits 1)
#   loadavg                    the 1, 5 and 15 minute load averages: "1.52 1.61 1.49"
#   commit                     the checked-out commit, short ("?" outside a git tree)
#   free_port                  a TCP port free on 127.0.0.1 now
#   need_debs CMD:PACKAGE ...  installs each PACKAGE whose CMD (a command, or a file's absolute path) is missing, with apt-get (sudo
#                              when not root): the benchmark-only tools scripts/setup.sh leaves out (wrk, perf, ...)
#   nginx_up DIR PORT SERVER [HTTP]   a private nginx (scripts/setup.sh installs it; 1 worker, sendfile, no access
#                              log unless HTTP sets one, pid/logs/temp files under DIR) on 127.0.0.1:PORT, SERVER the
#                              server block's body and HTTP more http-level lines; nginx_down DIR stops it
#   build_dwfetch_static [PRODUCT]   swift build -c release --static-swift-stdlib --scratch-path .build-bench (what the
#                              fetch, pixels, resume and start-up rows time); BENCH_BUILD=0 skips it
#   build_release PRODUCT      swift build -c release (the Swift runtime shared, scratch .build: the serve scripts')
#   build_bench_package DIR SCRATCH [FLAGS]   a bench SwiftPM package (bench/cache, bench/gif, ...) in release
#   ensure_corpus COUNT        the fetch corpus' first COUNT small images in bench/corpus/small (no 64 MiB files)
#   serve_png DIR              a 64×48 PNG at DIR/cat.png behind python's http.server; sets URL and SERVE_PID
#   order_staleness BIN        how many of Sources/dwfetch/startup.order's names BIN lacks, one line
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
OUT="$BENCH/out"
export PATH="$PATH:/opt/swift/usr/bin"

log() { printf '[%s] %s\n' "${BENCH_LOG_NAME:-bench}" "$*" >&2; }
die() { printf '[%s] error: %s\n' "${BENCH_LOG_NAME:-bench}" "$*" >&2; exit 1; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
commit() { git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

need_debs() {  # need_debs CMD:PACKAGE ...
    local missing=() pair cmd sudo=()
    for pair in "$@"; do
        cmd="${pair%%:*}"
        command -v "$cmd" >/dev/null 2>&1 || [[ -x "/usr/sbin/$cmd" || ( "$cmd" == /* && -e "$cmd" ) ]] \
            || missing+=("${pair#*:}")
    done
    ((${#missing[@]})) || return 0
    [[ "$(id -u)" -eq 0 ]] || sudo=(sudo)
    log "installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
        || die "could not install ${missing[*]}"
}

nginx_up() {  # nginx_up DIR PORT SERVER [HTTP]
    local dir="$1" port="$2" server="$3" http="${4:-}" nginx user=""
    nginx="$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)"  # scripts/setup.sh installs nginx-light
    [[ "$(id -u)" == 0 ]] && user="user root root;"
    [[ "$http" == *access_log* ]] || http="access_log off; $http"
    mkdir -p "$dir/tmp"
    cat >"$dir/nginx.conf" <<CONF
$user
worker_processes 1;
daemon on;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log warn;
events { worker_connections 1024; }
http {
    client_body_temp_path $dir/tmp/body; proxy_temp_path $dir/tmp/proxy; fastcgi_temp_path $dir/tmp/fcgi;
    uwsgi_temp_path $dir/tmp/uwsgi; scgi_temp_path $dir/tmp/scgi;
    sendfile on;
    $http
    server {
        listen 127.0.0.1:$port;
        $server
    }
}
CONF
    "$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/nginx-error.log" || die "nginx did not start ($dir/nginx-error.log)"
    for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0; sleep 0.05; done
    die "nginx is not listening on $port"
}
nginx_down() { kill "$(cat "$1/nginx.pid" 2>/dev/null)" 2>/dev/null || true; }

build_dwfetch_static() {  # build_dwfetch_static [PRODUCT]
    [[ "${BENCH_BUILD:-1}" == 1 ]] || return 0
    local product="${1:-dwfetch}" blog="$OUT/build-bench.log"
    mkdir -p "$OUT"
    log "building $product (release, --static-swift-stdlib: .build-bench)"
    (cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path "$ROOT/.build-bench" --product "$product" \
        >"$blog" 2>&1) || { tail -20 "$blog" >&2; die "build failed ($blog)"; }
}

build_release() {  # build_release PRODUCT
    [[ "${BENCH_BUILD:-1}" == 1 ]] || return 0
    local blog="$OUT/build-release.log"
    mkdir -p "$OUT"
    log "building $1 (release, Swift runtime shared: .build)"
    (cd "$ROOT" && swift build -c release --product "$1" >"$blog" 2>&1) || { tail -20 "$blog" >&2; die "build failed ($blog)"; }
}

build_bench_package() {  # build_bench_package DIR SCRATCH [FLAGS...]
    local dir="$1" scratch="$2" blog
    shift 2
    blog="$OUT/build-$(basename "$scratch").log"
    mkdir -p "$OUT"
    log "building $(basename "$dir") (release: $(basename "$scratch"))"
    # SwiftPM can keep a stale manifest of the library (a path dependency) after its Package.swift gained a target
    # ("no such module"): forget the cached manifests and try once more.
    for _ in 1 2; do
        swift build -c release --package-path "$dir" --scratch-path "$scratch" "$@" >"$blog" 2>&1 && return 0
        rm -f "$scratch/manifest.db" "$scratch/"*.json
    done
    tail -20 "$blog" >&2
    die "build failed ($blog)"
}

ensure_corpus() {  # ensure_corpus COUNT (make_corpus.py makes only the files that are missing)
    "$BENCH/ensure-python-deps"
    python3 "$BENCH/fetch/make_corpus.py" "$BENCH/corpus" --count "$1" --big 0 >/dev/null
}

serve_png() {  # serve_png DIR: sets URL and SERVE_PID (the caller kills it)
    local dir="$1" port
    mkdir -p "$dir"
    python3 - "$dir/cat.png" <<'PY'
import sys, zlib, struct
w, h = 64, 48
raw = b"".join(b"\x00" + bytes(v for x in range(w) for v in (x * 4 % 256, y * 5 % 256, 128)) for y in range(h))
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) \
      + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
    port="$(free_port)"
    python3 -m http.server "$port" --bind 127.0.0.1 --directory "$dir" >"$dir.http.log" 2>&1 &
    SERVE_PID=$!
    URL="http://127.0.0.1:$port/cat.png"
    for _ in $(seq 100); do curl -sf -o /dev/null "$URL" && return 0; sleep 0.05; done
    die "http.server did not answer on $port"
}

order_staleness() {  # order_staleness BIN
    local order="$ROOT/Sources/dwfetch/startup.order" total missing
    total="$(grep -c . "$order")"
    missing="$(comm -23 <(sort -u "$order") <(nm --defined-only "$1" | awk '{print $3}' | sort -u) | grep -c . || true)"
    if ((missing * 100 > total)); then
        echo "startup.order: $missing of its $total names are missing from this dwfetch (over 1 %: stale, run bench/startup/order and commit the file)"
    else
        echo "startup.order: $missing of its $total names are missing from this dwfetch (≤ 1 %: current)"
    fi
}
