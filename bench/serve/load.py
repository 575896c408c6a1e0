#!/usr/bin/env python3
"""HTTP load for bench/serve: PATHS file, N requests, C clients (keep-alive), RSS of PID at checkpoints.

    load.py --port P[,P2...] --paths FILE --requests N --clients C [--pid PID[,PID...] --checkpoints 1000,10000]
            [--shuffle SEED] [--range FROM:TO] [--cpu-pids PID,...]

Prints JSON: status counts, seconds, and {"rss_kib": {checkpoint: kib}}. Requests cycle through the paths in
order (or shuffled with a seed), so a run is repeatable; --range sends only requests FROM..TO-1 of that order
(checkpoints count from the start of the whole order), so two servers can take turns over the same sequence.
Several --pid: the RSS is their sum (thumbor's instances); "rss_peak_kib" is the largest sum seen, sampled after
every response. Several ports: client i connects to port i mod their
number (instances behind a balancer). With --cpu-pids, over the run: "cpu" (user + system seconds of those processes,
every thread, from /proc/PID/stat), "busy" (that CPU over the wall time: cores kept busy), "machine_idle" (the
fraction of all cores' time idle, from /proc/stat: what nobody on the machine used) and "threads" (the first
process's CPU seconds by thread name, largest first).
"""
import argparse, collections, http.client, json, os, random, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("--port", required=True)
ap.add_argument("--paths", required=True)
ap.add_argument("--requests", type=int, required=True)
ap.add_argument("--clients", type=int, default=4)
ap.add_argument("--pid", default="")
ap.add_argument("--range", default="")
ap.add_argument("--checkpoints", default="")
ap.add_argument("--shuffle", type=int)
ap.add_argument("--header", action="append", default=[])
ap.add_argument("--cpu-pids", default="")
a = ap.parse_args()

ports = [int(p) for p in a.port.split(",") if p]
paths = [l.strip() for l in open(a.paths) if l.strip()]
order = [paths[i % len(paths)] for i in range(a.requests)]
if a.shuffle is not None:
    random.Random(a.shuffle).shuffle(order)
first, last = (int(x) for x in a.range.split(":")) if a.range else (0, len(order))
checkpoints = sorted(int(c) for c in a.checkpoints.split(",") if c)
headers = dict(h.split(": ", 1) for h in a.header)
lock = threading.Lock()
state = {"next": first, "done": first, "status": {}, "rss": {}, "peak": 0}
rss_pids = [int(p) for p in a.pid.split(",") if p]
tick = os.sysconf("SC_CLK_TCK")
cpu_pids = [int(p) for p in a.cpu_pids.split(",") if p]

def rss():  # the sum over rss_pids, in KiB
    total = 0
    for pid in rss_pids:
        try:
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total

def ticks(stat_path):  # utime + stime of a /proc stat file; the name may hold spaces, so split after ')'
    try:
        text = open(stat_path).read()
    except OSError:
        return None, 0
    name, rest = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()
    return name, int(rest[11]) + int(rest[12])

def process_cpu():
    return sum(ticks(f"/proc/{p}/stat")[1] for p in cpu_pids) / tick

def thread_cpu():  # the first process's threads: {tid: (name, ticks)}
    if not cpu_pids:
        return {}
    base = f"/proc/{cpu_pids[0]}/task"
    out = {}
    for tid in os.listdir(base) if os.path.isdir(base) else []:
        name, t = ticks(f"{base}/{tid}/stat")
        if name is not None:
            out[tid] = (name, t)
    return out

def machine():  # (idle + iowait, total) jiffies over all cores
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return f[3] + f[4], sum(f)

def worker(index):
    port = ports[index % len(ports)]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    while True:
        with lock:
            i = state["next"]
            if i >= last:
                return
            state["next"] += 1
        try:
            conn.request("GET", order[i], headers=headers)
            r = conn.getresponse()
            r.read()
            code = r.status
        except Exception:
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            code = -1
        with lock:
            state["status"][code] = state["status"].get(code, 0) + 1
            state["done"] += 1
            if rss_pids:
                now = rss()
                state["peak"] = max(state["peak"], now)
                if state["done"] in checkpoints:
                    state["rss"][state["done"]] = now

c0, m0, th0 = process_cpu(), machine(), thread_cpu()
t0 = time.time()
threads = [threading.Thread(target=worker, args=(i,)) for i in range(a.clients)]
for t in threads: t.start()
for t in threads: t.join()
wall = time.time() - t0
c1, m1, th1 = process_cpu(), machine(), thread_cpu()
result = {"requests": last - first, "seconds": round(wall, 3), "status": state["status"], "rss_kib": state["rss"]}
if rss_pids:
    result["rss_peak_kib"] = state["peak"]
if cpu_pids:
    by_name = collections.Counter()
    for tid, (name, t) in th1.items():
        by_name[name] += (t - th0.get(tid, (name, 0))[1]) / tick
    result.update(cpu=round(c1 - c0, 3), busy=round((c1 - c0) / wall, 3),
                  machine_idle=round((m1[0] - m0[0]) / max(1, m1[1] - m0[1]), 3),
                  threads={k: round(v, 3) for k, v in by_name.most_common(8) if v > 0})
print(json.dumps(result))
