#!/usr/bin/env bash
# Usage: scripts/soak.sh [MINUTES] [--long]   (default 2; --long, or MINUTES >= 10, is the long form)
#
# A chaos soak of `dwfetch serve`: origins that misbehave on a schedule (scripts/soak/chaos.py: names that stop and
# start resolving, resets, stalls, truncated and lying bodies, 5xx storms, huge and hostile SVGs, slow readers) while
# a steady client (scripts/soak/steady.py) asks for good sources and checks every answer's pixels. The long form adds
# a fleet — three more instances behind Varnish's shard director (bench/serve/fleet_vcl.py), which gets half of the
# misbehaving sources and a second steady client — and kills one of its instances (SIGKILL) mid-run.
#
# serve runs inside `unshare --mount` with a hosts file and a resolv.conf (nameserver 127.0.0.1: no lookup leaves the
# machine) bind-mounted over /etc's; glibc reads the hosts file on every lookup, so rewriting it makes a name stop and
# start resolving for serve alone. Root, or unprivileged user namespaces, needed.
#
# Binary: $DWFETCH_BIN, else .build/debug/dwfetch. Writes only under ${TMPDIR:-/tmp} (a dwsoak.* directory, removed
# after a passing run, kept and named after a failing one; SOAK_KEEP=1 keeps it always). SOAK_FAULTS="stall 5xx"
# runs only those faults, in that order (by hand, to look at one; the names are in scripts/soak/chaos.py);
# SOAK_SERVE_ARGS="--workers 32" adds flags to every serve.
# Prints one line per invariant (scripts/soak/verdict.py): `soak: PASS <invariant> <value> (<bound>)` or
# `soak: FAIL <invariant> <value>: <the fault that broke it>`; exits 1 when any failed, 2 when the soak could not run.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1  # nothing written into the tree
root="$(cd "$(dirname "$0")/.." && pwd)"
here="$root/scripts/soak"
minutes=2 long=0
for arg in "$@"; do
    case "$arg" in
        --long) long=1 ;;
        ''|*[!0-9.]*) echo "usage: $0 [MINUTES] [--long]" >&2; exit 2 ;;
        *) minutes=$arg ;;
    esac
done
seconds=$(python3 -c "print(int(float('$minutes') * 60))")
(( seconds >= 60 )) || { echo "soak: at least one minute" >&2; exit 2; }
(( seconds < 600 )) || long=1
bin="${DWFETCH_BIN:-$root/.build/debug/dwfetch}"
[[ -x "$bin" ]] || { echo "soak: no dwfetch at $bin (build it, or set DWFETCH_BIN)" >&2; exit 2; }
python3 -c 'import PIL' 2>/dev/null || { echo "soak: Python's Pillow is missing (scripts/setup.sh)" >&2; exit 2; }
if ((long)); then
    command -v varnishd >/dev/null || [[ -x /usr/sbin/varnishd ]] \
        || { echo "soak: the long form needs varnishd" >&2; exit 2; }
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/dwsoak.XXXXXX")"
PIDS=()
status=2
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do { wait "$pid"; } 2>/dev/null || true; done  # quiet about the killed instance
    if [[ $status == 0 && -z "${SOAK_KEEP:-}" ]]; then rm -rf "$work"; else echo "soak: logs kept in $work" >&2; fi
}
trap cleanup EXIT

wait_for_file() {  # wait_for_file PATH SECONDS
    local deadline=$((SECONDS + $2))
    until [[ -s "$1" ]]; do
        ((SECONDS < deadline)) || { echo "soak: $1 did not appear" >&2; exit 2; }
        sleep 0.1
    done
}

python3 "$here/origin.py" good "$work/good.port" > "$work/origin-good.log" 2>&1 & PIDS+=($!)
python3 "$here/origin.py" chaos "$work/chaos.port" > "$work/origin-chaos.log" 2>&1 & PIDS+=($!)
wait_for_file "$work/good.port" 30
wait_for_file "$work/chaos.port" 30
good_port=$(cat "$work/good.port") chaos_port=$(cat "$work/chaos.port")

# The names serve resolves: good.soak.test always, flap.soak.test except when chaos.py comments it out (in place, at
# the same length).
hosts_text=$'127.0.0.1 localhost\n::1 localhost\n127.0.0.1 good.soak.test\n127.0.0.1 flap.soak.test\n'
printf '%s' "$hosts_text" > "$work/hosts"
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' > "$work/resolv.conf"
unshare_flags=(--mount)
if ! unshare --mount true 2>/dev/null; then
    unshare --user --map-root-user --mount true 2>/dev/null \
        || { echo "soak: unshare --mount is not permitted here (run as root)" >&2; exit 2; }
    unshare_flags=(--user --map-root-user --mount)
fi

# start_serve NAME: one `dwfetch serve` in its own mount namespace; sets SERVE_PID, SERVE_PORT, METRICS_PORT.
start_serve() {
    local name=$1 deadline
    mkdir -p "$work/$name"
    # shellcheck disable=SC2016  # $1.. are the inner shell's
    unshare "${unshare_flags[@]}" sh -c 'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/resolv.conf &&
        shift 2 && exec "$@"' sh "$work/hosts" "$work/resolv.conf" \
        "$bin" serve --host 127.0.0.1 --port 0 --cache-dir "$work/$name/cache" --metrics-bind 127.0.0.1:0 \
        --allow-network 127.0.0.0/8 --timeout 4 --request-timeout 8 --shutdown-timeout 5 --verbose \
        --memory-cache 16 \
        ${SOAK_SERVE_ARGS:-} \
        > "$work/$name/stdout" 2> "$work/$name/stderr" &
    SERVE_PID=$!; PIDS+=("$SERVE_PID")
    deadline=$((SECONDS + 60))
    until grep -q "metrics on port" "$work/$name/stdout" && grep -q "listening on" "$work/$name/stdout"; do
        if ! kill -0 "$SERVE_PID" 2>/dev/null || ((SECONDS > deadline)); then
            echo "soak: serve ($name) did not start:" >&2; cat "$work/$name/stderr" >&2; exit 2
        fi
        sleep 0.1
    done
    SERVE_PORT=$(grep -o 'listening on http://[^ ]*' "$work/$name/stdout" | head -1 | sed 's/.*://; s/[^0-9].*//')
    METRICS_PORT=$(grep -o 'metrics on port [0-9]*' "$work/$name/stdout" | head -1 | awk '{print $4}')
}

start_serve serve
serve_pid=$SERVE_PID serve_port=$SERVE_PORT metrics_port=$METRICS_PORT
kill_pid=0
if ((long)); then
    # The fleet is three more instances: the first one's sockets and memory stay the steady client's alone.
    start_serve fleet0; fleet_ports=("$SERVE_PORT")
    start_serve fleet1; fleet_ports+=("$SERVE_PORT"); kill_pid=$SERVE_PID
    disown "$kill_pid"  # its SIGKILL is the schedule's: no job notice from bash
    start_serve fleet2; fleet_ports+=("$SERVE_PORT")
    python3 "$root/bench/serve/fleet_vcl.py" "${fleet_ports[@]}" > "$work/fleet.vcl"
    chmod 755 "$work"; chmod 644 "$work/fleet.vcl"  # varnishd reads its VCL as the varnish user
    varnish_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    mkdir -p "$work/varnish"; chmod 755 "$work/varnish"
    "$(command -v varnishd || echo /usr/sbin/varnishd)" -F -n "$work/varnish" -a "127.0.0.1:$varnish_port" \
        -f "$work/fleet.vcl" -s malloc,64m > "$work/varnish.log" 2>&1 & PIDS+=($!)
    deadline=$((SECONDS + 30))
    until python3 -c "import socket; socket.create_connection(('127.0.0.1', $varnish_port), 1)" 2>/dev/null; do
        ((SECONDS < deadline)) || { echo "soak: varnishd did not start" >&2; cat "$work/varnish.log" >&2; exit 2; }
        sleep 0.2
    done
    sleep 2  # the probes mark every instance healthy
fi
form=$( ((long)) && echo ', long form (a fleet of 3 behind Varnish, one killed)' || true)
echo "soak: ${seconds}s$form: serve pid $serve_pid" \
     "port $serve_port, origins $good_port (good) and $chaos_port (misbehaving), logs in $work"

python3 - "$work/config.json" <<PY
import json, sys
json.dump({"work": "$work", "seconds": $seconds, "serve_pid": $serve_pid, "serve_port": $serve_port,
           "metrics_port": $metrics_port, "cache_dir": "$work/serve/cache", "chaos_port": $chaos_port,
           "good_origin": "good.soak.test:$good_port", "hosts": "$work/hosts", "hosts_good": """$hosts_text""",
           "long": bool($long), "kill_pid": $kill_pid, "fleet_port": ${varnish_port:-0},
           "faults": [f for f in "${SOAK_FAULTS:-}".replace(",", " ").split()]}, open(sys.argv[1], "w"))
PY
steady=()
python3 "$here/steady.py" "$serve_port" "good.soak.test:$good_port" "$work/stop" "$work/steady.jsonl" \
    > "$work/steady.log" 2>&1 & steady+=($!); PIDS+=($!)
if ((long)); then
    python3 "$here/steady.py" "$varnish_port" "good.soak.test:$good_port" "$work/stop" "$work/steady.jsonl" \
        --rate 8 --label fleet > "$work/steady-fleet.log" 2>&1 & steady+=($!); PIDS+=($!)
fi
python3 "$here/chaos.py" "$work/config.json" > "$work/chaos.log" 2>&1 \
    || { echo "soak: the schedule failed:" >&2; cat "$work/chaos.log" >&2; exit 2; }
for pid in "${steady[@]}"; do wait "$pid" || true; done

status=0
python3 "$here/verdict.py" "$work" "$work/serve/stderr" $( ((long)) && echo --long) || status=1
exit $status
