#!/usr/bin/env python3
"""The soak's invariants, from what chaos.py, steady.py and serve's access log left in the run's directory.

    verdict.py WORK_DIR SERVE_STDERR

Prints one line per invariant, `soak: PASS name detail` or `soak: FAIL name detail: <fault that broke it>`, and exits
1 when any failed. The bounds (MARGINS) are stated in every line. "Flat" compares the maximum of the last third of
the samples after the warm-up with the maximum of the first third (for RSS the lowest sample of each third: slow
readers' bodies make peaks of tens of MiB that come and go, a leak raises the floor; the peak has its own bound).
"""
import json
import math
import os
import re
import sys

HIT_P99_MS = 50.0
RSS_MARGIN = (0.25, 32 * 1024)  # last third's low <= first third's low * 1.25 + 32 MiB (kB)
RSS_PEAK_KB = 448 * 1024  # the whole run's peak (kB): slow readers hold their bodies, nothing holds hundreds of MiB
FD_MARGIN = 8
THREAD_MARGIN = 4
GOOD_POOL = 16  # idle keep-alive connections to the good origin libcurl may keep (serve's -j default)
ACCESS = re.compile(r"\b(GET|HEAD) (/\S*) (\d{3}) (\d+) ([\d.]+)ms( .*)?$")


def lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def p99(values):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]


class Verdict:
    def __init__(self, work, serve_log):
        self.work = work
        self.schedule = lines(os.path.join(work, "schedule.jsonl"))
        self.samples = lines(os.path.join(work, "samples.jsonl"))
        self.steady = lines(os.path.join(work, "steady.jsonl"))
        final_path = os.path.join(work, "final.json")
        self.final = json.load(open(final_path)) if os.path.exists(final_path) else {}
        self.serve_log = open(serve_log, errors="replace").read().splitlines() if os.path.exists(serve_log) else []
        self.failed = []

    def report(self, name, ok, detail, fault=None):
        if ok:
            print(f"soak: PASS {name} {detail}")
        else:
            self.failed.append(name)
            print(f"soak: FAIL {name} {detail}: {fault or 'no single fault'}")

    def fault_at(self, t):
        """The fault whose phase was running at t, or the last one before it ("after <fault>")."""
        last = None
        for phase in self.schedule:
            if phase["start"] <= t <= phase["end"]:
                return phase["fault"]
            if phase["end"] < t:
                last = phase["fault"]
        return f"after {last}" if last else "before the first fault"

    def storm_window(self):
        warm = [p for p in self.schedule if p["fault"] == "warmup"]
        start = warm[0]["end"] if warm else (self.samples[0]["t"] if self.samples else 0)
        return start, (self.schedule[-1]["end"] if self.schedule else float("inf"))

    # ---- the invariants

    def good_requests(self, label, name):
        mine = [r for r in self.steady if r["label"] == label]
        bad = [r for r in mine if not r["ok"]]
        if not mine:
            return self.report(name, False, "no request was made", "the steady client did not run")
        if not bad:
            return self.report(name, True, f"{len(mine)}/{len(mine)} answered 200 with the right pixels")
        first = bad[0]
        after = [r for r in mine if r["t"] >= first["t"]]
        new_after = [r for r in after if r["kind"] == "new"]
        detail = (f"{len(bad)} of {len(mine)} good requests failed, first at +{first['t'] - self.steady[0]['t']:.1f}s "
                  f"({first['status']} {first['why']!s:.120}); after it {sum(not r['ok'] for r in new_after)} of "
                  f"{len(new_after)} new sources failed")
        self.report(name, False, detail, self.fault_at(first["t"]))

    def cache_hit_p99(self):
        """Gated on the client's time (connect to last byte): serve's access-log time starts in the handler, so it
        misses a request's wait to be read at all (a saturated machine, a blocked event loop). Both are printed."""
        server_ms = []
        for line in self.serve_log:
            m = ACCESS.search(line)
            if not m or m.group(3) != "200" or "%2Fgood%2F" not in m.group(2) or m.group(2).endswith("@bmp"):
                continue
            if (m.group(6) or "").strip().startswith(("memory", "disk")):
                server_ms.append(float(m.group(5)))
        client = [r for r in self.steady if r["label"] == "serve" and r["kind"] == "hit" and r["ok"]]
        value = p99([r["ms"] for r in client])
        slow_at = [self.fault_at(r["t"]) for r in client if r["ms"] > HIT_P99_MS]
        detail = (f"{value:.1f}ms (< {HIT_P99_MS:.0f}ms, at the client, {len(client)} hits; in serve's handler "
                  f"{p99(server_ms):.1f}ms over {len(server_ms)})")
        worst = sorted(set(slow_at), key=slow_at.count, reverse=True)[:3]
        fault = (", ".join(f"{f} ({slow_at.count(f)})" for f in worst) + f" of the {len(slow_at)} hits over "
                 f"{HIT_P99_MS:.0f}ms") if worst else None
        self.report("cache-hit-p99", bool(client) and value < HIT_P99_MS, detail, fault)

    def grew_most(self, key, scale=str):
        """The fault phase during which `key` rose the most (sample at its end minus at its start)."""
        best, fault = 0, None
        for phase in self.schedule:
            inside = [s[key] for s in self.samples if phase["start"] - 0.5 <= s["t"] <= phase["end"] + 0.5]
            if len(inside) >= 2 and inside[-1] - inside[0] > best:
                best, fault = inside[-1] - inside[0], phase["fault"]
        return f"{fault} (+{scale(best)} during one of its phases)" if fault else None

    def flat(self, name, key, unit, bound, margin_text, pick=max):
        """`pick` (max, or min for a baseline under transient peaks) of the last third of the samples after the
        warm-up against the same of the first third."""
        start, end = self.storm_window()
        window = [s for s in self.samples if start <= s["t"] <= end]
        if len(window) < 6:
            return self.report(name, False, f"{len(window)} samples after the warm-up", "serve's /proc unreadable")
        third = (window[-1]["t"] - window[0]["t"]) / 3
        first = pick(s[key] for s in window if s["t"] <= window[0]["t"] + third)
        last = pick(s[key] for s in window if s["t"] >= window[-1]["t"] - third)
        limit = bound(first)
        scale = (lambda v: f"{v / 1024:.1f}MiB") if unit == "kB" else str
        what = "max" if pick is max else "low"
        detail = (f"first third {what} {scale(first)}, last third {what} {scale(last)} (<= {scale(limit)}: "
                  f"{margin_text})")
        self.report(name, last <= limit, detail, self.grew_most(key, scale))

    def rss_peak(self):
        """Peak RSS of the whole run against an absolute bound: one hostile request must not take the process up by
        hundreds of MiB (the SVG bomb once took it to 571 MB)."""
        peak = max((s["rss_kb"] for s in self.samples), default=0)
        detail = f"{peak / 1024:.1f}MiB (<= {RSS_PEAK_KB / 1024:.0f}MiB)"
        self.report("rss-peak", 0 < peak <= RSS_PEAK_KB, detail, self.grew_most("rss_kb", lambda v: f"{v / 1024:.1f}MiB"))

    def connections(self):
        socks = self.final.get("sockets") or {}
        origin = self.final.get("origin") or {}
        to_chaos, inbound, to_good = socks.get("to_chaos", []), socks.get("inbound", []), socks.get("to_good", [])
        detail = (f"after the calm: {len(to_chaos)} to the misbehaving origin (0 allowed), {len(inbound)} from clients "
                  f"(0 allowed), {len(to_good)} kept to the good origin (<= {GOOD_POOL})")
        fault = None
        if to_chaos:
            open_faults = [f for f, s in origin.items() if isinstance(s, dict) and s.get("open")]
            fault = ", ".join(open_faults) or f"sockets {sorted(set(to_chaos))}"
        elif inbound:
            fault = f"client connections left {sorted(set(inbound))} (slow-reader holds client connections)"
        ok = not to_chaos and not inbound and len(to_good) <= GOOD_POOL
        self.report("connections", ok and bool(socks), detail, fault or ("no final sample" if not socks else None))

    def fault_counters(self):
        origin = self.final.get("origin")
        if origin is None or "error" in origin:
            return self.report("fault-counters", False, "the origin's counters were not read", "origin gone")
        stuck = {f: s for f, s in origin.items() if s.get("open") or s.get("dropped")}
        gauges = []
        for line in (self.final.get("metrics") or "").splitlines():
            if line.startswith("#") or not re.match(r"dwserve_\S*(inflight|in_flight|queue|running|open)\S* ", line):
                continue
            if float(line.rsplit(" ", 1)[1]) != 0:
                gauges.append(line)
        summary = ", ".join(f"{f} {s['requests']} req max {s['max_open']} open" for f, s in sorted(origin.items())
                            if f not in ("good", "_stats"))
        detail = (f"open now at the origin, per fault: all 0 ({summary}); serve's in-flight gauges 0"
                  if not stuck and not gauges else
                  f"still open or dropped after 60 s: {json.dumps(stuck)}; gauges not 0: {gauges}")
        self.report("fault-counters", not stuck and not gauges, detail, ", ".join(stuck) or ", ".join(gauges))

    def temp_files(self):
        temp = self.final.get("temp_files") or []
        deleted = (self.final.get("sample") or {}).get("deleted_cache_fds", 0)
        detail = f"{len(temp)} temporary files under the cache dir, {deleted} unnamed ones held open (0 allowed)"
        fault = None
        if temp:
            newest = max(temp, key=lambda p: os.path.getmtime(p) if os.path.exists(p) else 0)
            if os.path.exists(newest):
                fault = f"{self.fault_at(os.path.getmtime(newest))} ({os.path.basename(newest)})"
        self.report("temp-files", not temp and not deleted, detail, fault or "unnamed files held open")

    def threads(self):
        warm = [s["threads"] for s in self.samples if s["t"] <= self.storm_window()[0]]
        now = (self.final.get("sample") or {}).get("threads")
        if not warm or now is None:
            return self.report("threads-after", False, "no samples", "serve's /proc unreadable")
        limit = max(warm) + THREAD_MARGIN
        self.report("threads-after", now <= limit, f"{now} after the calm (<= warm-up max {max(warm)} + "
                    f"{THREAD_MARGIN})", self.grew_most("threads"))

    def alive(self):
        ok = self.final.get("alive", False)
        self.report("serve-alive", ok, "serve ran to the end" if ok else "serve died", self.fault_at(
            max((s["t"] for s in self.samples), default=0)))

    def run(self, long_form):
        self.alive()
        self.good_requests("serve", "good-requests")
        self.cache_hit_p99()
        self.flat("rss-flat", "rss_kb", "kB", lambda v: v * (1 + RSS_MARGIN[0]) + RSS_MARGIN[1],
                  "+25% +32MiB", pick=min)
        self.rss_peak()
        self.flat("fds-flat", "fds", "", lambda v: v + FD_MARGIN, f"+{FD_MARGIN}")
        self.flat("threads-flat", "threads", "", lambda v: v + THREAD_MARGIN, f"+{THREAD_MARGIN}")
        self.threads()
        self.connections()
        self.temp_files()
        self.fault_counters()
        if long_form:
            self.good_requests("fleet", "fleet-requests")
        return 1 if self.failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sys.exit(Verdict(sys.argv[1], sys.argv[2]).run("--long" in sys.argv[3:]))
