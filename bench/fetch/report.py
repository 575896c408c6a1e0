#!/usr/bin/env python3
"""Turns bench/out/fetch/results.tsv into the Markdown report bench/out/fetch.md (printed on stdout).

Each row of results.tsv is one timed invocation: run, set (small | bigK), tool, wall_s, maxrss_kb, requests
(lines nginx logged during it), files and bytes found in its output directory afterwards, its exit code and its
CPU seconds (user + sys).
"""
import argparse
import os
import platform
import statistics
import subprocess
import time
from collections import defaultdict

TOOLS = {
    # key: (label, command shown, what it measures)
    "dwfetch-nocache": ("dwfetch --no-cache", "dwfetch -q -j {j} --no-cache -o DIR -i urls (no cache read or written)"),
    "dwfetch-cold": ("dwfetch cold", "dwfetch -q -j {j} -o DIR -i urls --cache-dir CACHE (CACHE emptied first)"),
    "dwfetch-warm": ("dwfetch warm", "dwfetch -q -j {j} -o DIR -i urls --cache-dir CACHE (CACHE full)"),
    "curl": ("curl", "curl --parallel --parallel-max {j} -s --output-dir DIR --remote-name-all -K urls"),
    "aria2c": ("aria2c", "aria2c -q -j {j} --max-connection-per-server=1 -i urls -d DIR"),
    "wget": ("wget", "wget -q -i urls -P DIR"),
    "cp": ("cp -r", "cp -r -t DIR corpus files (no network: the floor for the warm case; from tmpfs when DIR is on tmpfs)"),
    "dwfetch-cold-twice": ("dwfetch cold, body written twice (diagnostic)",
                           "DWFETCH_OUTPUT_FROM_ENTRY=off dwfetch -q -j {j} -o DIR -i urls --cache-dir CACHE (CACHE emptied first; "
                           "the output written from memory beside the entry)"),
    "dwfetch-warm-twice": ("dwfetch warm, output written from memory (diagnostic)",
                           "DWFETCH_OUTPUT_FROM_ENTRY=off dwfetch -q -j {j} -o DIR -i urls --cache-dir CACHE (CACHE full)"),
}
ORDER = ["curl", "dwfetch-nocache", "dwfetch-cold", "dwfetch-cold-twice", "aria2c", "wget",
         "dwfetch-warm", "dwfetch-warm-twice", "cp"]
COLD = {"dwfetch-nocache", "dwfetch-cold", "dwfetch-cold-twice", "curl", "aria2c", "wget"}
WARM = {"dwfetch-warm", "dwfetch-warm-twice"}
RSS_LIMIT_MIB = 64.0
COLD_LIMIT = 1.15       # target: cold with cache ≤ 1.15 × curl wall
COLD_CPU_LIMIT = 1.4    # target: … and ≤ 1.4 × curl CPU
NOCACHE_LIMIT = 1.0     # target: --no-cache ≤ 1.0 × curl wall
NOCACHE_CPU_LIMIT = 1.2  # target: … and ≤ 1.2 × curl CPU
WARM_LIMIT = 1.0        # target: warm ≤ 1.0 × cp -r (tmpfs → tmpfs)


def sh(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception:
        return ""


def machine(args) -> list[str]:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
                break
    except OSError:
        pass
    head = sh(["git", "-C", args.repo, "rev-parse", "--short", "HEAD"]) or "?"
    dirty = sh(["git", "-C", args.repo, "status", "--porcelain", "--", "Sources", "Package.swift"])
    if args.source == "head":
        commit = head + " (dwfetch built from a snapshot of this commit)"
    else:
        commit = head + (" + uncommitted changes under Sources/ (dwfetch built from the work tree)" if dirty else "")
    curl = sh(["curl", "--version"]).splitlines()
    libcurl = next((w for w in (curl[0].split() if curl else []) if w.startswith("libcurl/")), "?")
    linked = next((l.split()[0] for l in sh(["ldd", args.dwfetch]).splitlines() if "libcurl" in l), "?")
    nginx = sh(["sh", "-c", "nginx -v 2>&1 || /usr/sbin/nginx -v 2>&1"]).replace("nginx version: ", "")
    aria = (sh(["aria2c", "--version"]).splitlines() or ["?"])[0]
    wget = (sh(["wget", "--version"]).splitlines() or ["?"])[0]
    swift = (sh(["swift", "--version"]).splitlines() or ["?"])[0]
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else ["?"]
    return [
        f"- machine: {os.cpu_count()} CPUs (nproc {sh(['nproc']) or '?'}), {cpu}, {mem} RAM, "
        f"kernel {platform.release()}; load average at the end {' '.join(load)} (shared machine)",
        f"- commit: `{commit}`; measured {time.strftime('%Y-%m-%d %H:%M %Z')}",
        f"- tools: curl {libcurl} (dwfetch links {linked}), {wget}, {aria}, nginx {nginx}, {swift}",
    ]


RSS_GROWTH_LIMIT = 1.2  # target: peak RSS over 10,000 URLs ≤ 1.2 × over 1,000


def rss_section(rss_rows) -> list[str]:
    """The RSS-over-URL-count rows (dwfetch cold, cache + -o): a small table and one PASS/FAIL line."""
    if not rss_rows:
        return []
    out = ["", "### Peak RSS against the number of URLs (dwfetch cold, cache + `-o`)", "",
           "| URLs | runs | peak RSS MiB (median) | min–max MiB | CPU s | failed runs |", "|---:|---:|---:|---:|---:|---:|"]
    med = {}
    for n in sorted(rss_rows):
        rs = rss_rows[n]
        kb = [int(r["maxrss_kb"]) / 1024 for r in rs]
        med[n] = statistics.median(kb)
        bad = sum(1 for r in rs if r["rc"] != "0" or int(r["files"]) != n)
        out.append(f"| {n:,} | {len(rs)} | {med[n]:.1f} | {min(kb):.1f}–{max(kb):.1f} | "
                   f"{statistics.median(float(r['cpu_s']) for r in rs):.2f} | {bad} |")
    if 1000 in med and 10000 in med:
        r = med[10000] / med[1000]
        out += ["", f"- {'PASS' if r <= RSS_GROWTH_LIMIT else 'FAIL'}: peak RSS, 10,000 URLs {med[10000]:.1f} MiB = "
                    f"{r:.2f} × 1,000 URLs {med[1000]:.1f} MiB (target ≤ {RSS_GROWTH_LIMIT:.1f} ×)"]
    return out


def fmt_s(x: float) -> str:
    return f"{x:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tsv")
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--jobs", type=int, required=True)
    ap.add_argument("--quick", default="0")
    ap.add_argument("--corpus", default="")
    ap.add_argument("--corpus-dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--dwfetch", required=True)
    ap.add_argument("--source", default="tree")
    ap.add_argument("--tmp", default="")
    a = ap.parse_args()

    rows = []
    with open(a.tsv) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(header, line.rstrip("\n").split("\t")))
            rows.append(r)

    # What a complete output directory holds, per set.
    expected = {}
    for name in os.listdir(a.work):
        if name.startswith("names-") and name.endswith(".txt") and name != "names-big.txt":
            s = name[len("names-"):-len(".txt")]
            sub = "small" if s == "small" else "big"
            names = [n for n in open(os.path.join(a.work, name)).read().split("\n") if n]
            expected[s] = (len(names), sum(os.path.getsize(os.path.join(a.corpus_dir, sub, n)) for n in names))

    by = defaultdict(list)  # (group, tool) -> rows; group = small | big
    rss_rows = defaultdict(list)  # URL count -> rows of the RSS-over-URL-count sets (rss1000, rss10000)
    for r in rows:
        if r["set"].startswith("rss"):
            rss_rows[int(r["set"][3:])].append(r)
            continue
        group = "small" if r["set"] == "small" else "big"
        by[(group, r["tool"])].append(r)

    def ok(r) -> bool:
        files, nbytes = expected[r["set"]]
        return r["rc"] == "0" and int(r["files"]) == files and int(r["bytes"]) == nbytes

    def stats(group, tool):
        rs = by.get((group, tool), [])
        if not rs:
            return None
        walls = [float(r["wall_s"]) for r in rs]
        cpus = [float(r.get("cpu_s") or 0) for r in rs]
        return {
            "cpu": statistics.median(cpus),
            "n": len(rs),
            "median": statistics.median(walls),
            "min": min(walls),
            "max": max(walls),
            "rss": max(int(r["maxrss_kb"]) for r in rs) / 1024,
            "rss_med": statistics.median(int(r["maxrss_kb"]) for r in rs) / 1024,
            "req_total": sum(int(r["requests"]) for r in rs),
            "req_med": statistics.median(int(r["requests"]) for r in rs),
            "bad": sum(0 if ok(r) else 1 for r in rs),
            "bytes": statistics.median(expected[r["set"]][1] for r in rs),
            "files": statistics.median(expected[r["set"]][0] for r in rs),
        }

    def paired(group, tool, anchor, key="wall_s"):
        """The median, min and max over runs of tool ÷ anchor within the same run (the tools of a run are
        interleaved, so a host that slows down between runs slows both sides of each ratio alike)."""
        mine = {r["run"]: float(r.get(key) or 0) for r in by.get((group, tool), [])}
        theirs = {r["run"]: float(r.get(key) or 0) for r in by.get((group, anchor), [])}
        ratios = [mine[k] / theirs[k] for k in mine if k in theirs and theirs[k] > 0]
        return (statistics.median(ratios), min(ratios), max(ratios)) if ratios else None

    out = []
    mode = "QUICK MODE (smoke test: 200 images, 1 run, no 64 MiB files) — not a result to quote" if a.quick == "1" \
        else "full run"
    out.append("## Fetch benchmark: dwfetch vs curl, wget, aria2c, Swift clients and cp -r")
    out.append("")
    out.append(f"{mode}. Loopback nginx on 127.0.0.1 (1 worker, sendfile, keep-alive), {a.jobs} concurrent transfers for "
               f"every parallel tool. **Medians of {a.runs} run(s)**, tools interleaved within each run and their order "
               "rotated from run to run; a fresh output directory for every invocation; `sync` before each (untimed). "
               "Wall time is the whole process (start-up included); peak RSS is the largest "
               "`/usr/bin/time -v` \"Maximum resident set size\" over the runs. MB = 10^6 bytes.")
    out.append("")
    out += machine(a)
    if a.corpus:
        out.append(f"- {a.corpus}")
    out.append("")

    base_curl = stats("small", "curl")
    base_cp = stats("small", "cp")
    nsmall, bsmall = expected.get("small", (0, 0))
    out.append(f"### {nsmall:,} small images ({bsmall / 1e6:.1f} MB) in one invocation — {a.runs} run(s), medians; "
               "ratios are the median of each run's own ratio")
    out.append("")
    out.append("| tool | case | median wall s | min–max s | CPU s | CPU min–max s | files/s | MB/s | peak RSS MiB | requests/run | vs curl (cold) | CPU vs curl | vs cp -r (warm) | CPU vs cp -r |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for tool in ORDER:
        st = stats("small", tool)
        if st is None:
            continue
        label = TOOLS[tool][0] + (f" ⚠ {st['bad']} incomplete run(s)" if st["bad"] else "")
        case = "cold" if tool in COLD else ("warm (cache)" if tool in WARM else "local copy")
        # Ratios: the median of each run's own ratio (see `paired`), not a ratio of the medians.
        vs_curl = f"{paired('small', tool, 'curl')[0]:.2f}×" if base_curl and tool in COLD else ""
        vs_cp = f"{paired('small', tool, 'cp')[0]:.2f}×" if base_cp and tool in WARM | {"cp"} else ""
        cpu_curl = (f"{paired('small', tool, 'curl', 'cpu_s')[0]:.2f}×"
                    if base_curl and base_curl["cpu"] > 0 and tool in COLD else "")
        cpu_cp = (f"{paired('small', tool, 'cp', 'cpu_s')[0]:.2f}×"
                  if base_cp and base_cp["cpu"] > 0 and tool in WARM | {"cp"} else "")
        cpus = [float(r.get("cpu_s") or 0) for r in by[("small", tool)]]
        out.append(f"| {label} | {case} | {fmt_s(st['median'])} | {fmt_s(st['min'])}–{fmt_s(st['max'])} | "
                   f"{st['cpu']:.3f} | {min(cpus):.3f}–{max(cpus):.3f} | {st['files'] / st['median']:,.0f} | "
                   f"{st['bytes'] / 1e6 / st['median']:.0f} | "
                   f"{st['rss']:.1f} | {st['req_med']:.0f} | {vs_curl} | {cpu_curl} | {vs_cp} | {cpu_cp} |")
    out.append("")

    big_tools = [t for t in ORDER if by.get(("big", t))]
    if big_tools:
        nbig = len({r["set"] for r in rows if r["set"] != "small"})
        out.append(f"### 64 MiB files, one per invocation ({nbig} files × {a.runs} run(s)), medians")
        out.append("")
        out.append("| tool | case | median wall s | min–max s | MB/s | peak RSS MiB (max) | median RSS MiB |")
        out.append("|---|---|---:|---:|---:|---:|---:|")
        for tool in big_tools:
            st = stats("big", tool)
            label = TOOLS[tool][0] + (f" ⚠ {st['bad']} incomplete run(s)" if st["bad"] else "")
            case = "cold" if tool in COLD else ("warm (cache)" if tool in WARM else "local copy")
            out.append(f"| {label} | {case} | {fmt_s(st['median'])} | {fmt_s(st['min'])}–{fmt_s(st['max'])} | "
                       f"{st['bytes'] / 1e6 / st['median']:.0f} | {st['rss']:.1f} | {st['rss_med']:.1f} |")
        out.append("")

    # Targets.
    out.append("### Targets")
    out.append("")
    lines = []
    cold, warm = stats("small", "dwfetch-cold"), stats("small", "dwfetch-warm")

    def verdict(b):
        return "PASS" if b else "FAIL"

    nocache = stats("small", "dwfetch-nocache")
    for st, name, wall_limit, cpu_limit in ((nocache, "--no-cache", NOCACHE_LIMIT, NOCACHE_CPU_LIMIT),
                                            (cold, "cold with cache", COLD_LIMIT, COLD_CPU_LIMIT)):
        if not (st and base_curl):
            continue
        tool = "dwfetch-nocache" if st is nocache else "dwfetch-cold"
        r, lo, hi = paired("small", tool, "curl")
        lines.append(f"- {verdict(r <= wall_limit and not st['bad'])}: {name}, {nsmall:,} images: dwfetch "
                     f"{r:.2f} × curl's wall time, the median of each run's ratio ({lo:.2f}–{hi:.2f}; medians "
                     f"{fmt_s(st['median'])} against {fmt_s(base_curl['median'])} s) (target ≤ {wall_limit:.2f} ×)")
        if base_curl["cpu"] > 0:
            c, lo, hi = paired("small", tool, "curl", "cpu_s")
            lines.append(f"- {verdict(c <= cpu_limit)}: {name}, CPU: {c:.2f} × curl's ({lo:.2f}–{hi:.2f}; medians "
                         f"{st['cpu']:.2f} against {base_curl['cpu']:.2f} s) (target ≤ {cpu_limit:.2f} ×)")
    if warm:
        lines.append(f"- {verdict(warm['req_total'] == 0)}: warm: {warm['req_total']} requests reached nginx during "
                     f"{warm['n']} warm run(s) (target 0)")
        big_warm = stats("big", "dwfetch-warm")
        if big_warm:
            lines.append(f"- {verdict(big_warm['req_total'] == 0)}: warm, 64 MiB files: {big_warm['req_total']} requests "
                         f"during {big_warm['n']} warm invocation(s) (target 0)")
    if warm and base_cp:
        r, lo, hi = paired("small", "dwfetch-warm", "cp")
        lines.append(f"- {verdict(r <= WARM_LIMIT and not warm['bad'])}: warm, {nsmall:,} images: dwfetch "
                     f"{r:.2f} × cp -r's wall time, the median of each run's ratio ({lo:.2f}–{hi:.2f}; medians "
                     f"{fmt_s(warm['median'])} against {fmt_s(base_cp['median'])} s) (target ≤ {WARM_LIMIT:.2f} ×)")
        if base_cp["cpu"] > 0:
            c, lo, hi = paired("small", "dwfetch-warm", "cp", "cpu_s")
            lines.append(f"- {verdict(c <= WARM_LIMIT)}: warm, CPU: {c:.2f} × cp -r's ({lo:.2f}–{hi:.2f}; medians "
                         f"{warm['cpu']:.3f} against {base_cp['cpu']:.3f} s) (target ≤ {WARM_LIMIT:.2f} ×)")
    for group, what in (("small", f"{nsmall:,}-image run"), ("big", "64 MiB file")):
        for tool in ("dwfetch-cold", "dwfetch-warm"):
            st = stats(group, tool)
            if st:
                lines.append(f"- {verdict(st['rss'] <= RSS_LIMIT_MIB)}: peak RSS, {what}, {TOOLS[tool][0]}: "
                             f"{st['rss']:.1f} MiB (target ≤ {RSS_LIMIT_MIB:.0f} MiB)")
    out += lines
    out += rss_section(rss_rows)
    out.append("")
    out.append("Commands (DIR is a fresh directory each time; urls is the list of URLs, one a line). Outputs and caches "
               f"were written under `{a.tmp}`.")
    out.append("")
    for tool in ORDER:
        if any(by.get((g, tool)) for g in ("small", "big")):
            out.append(f"- {TOOLS[tool][0]}: `{TOOLS[tool][1].format(j=a.jobs)}`")
    out.append("")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
