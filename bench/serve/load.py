#!/usr/bin/env python3
"""HTTP load for bench/serve: PATHS file, N requests, C clients (keep-alive), RSS of PID at checkpoints.

    load.py --port P --paths FILE --requests N --clients C [--pid PID --checkpoints 1000,10000] [--shuffle SEED]

Prints JSON: status counts, seconds, and {"rss_kib": {checkpoint: kib}}. Requests cycle through the paths in
order (or shuffled with a seed), so a run is repeatable.
"""
import argparse, http.client, json, random, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--paths", required=True)
ap.add_argument("--requests", type=int, required=True)
ap.add_argument("--clients", type=int, default=4)
ap.add_argument("--pid", type=int)
ap.add_argument("--checkpoints", default="")
ap.add_argument("--shuffle", type=int)
ap.add_argument("--header", action="append", default=[])
a = ap.parse_args()

paths = [l.strip() for l in open(a.paths) if l.strip()]
order = [paths[i % len(paths)] for i in range(a.requests)]
if a.shuffle is not None:
    random.Random(a.shuffle).shuffle(order)
checkpoints = sorted(int(c) for c in a.checkpoints.split(",") if c)
headers = dict(h.split(": ", 1) for h in a.header)
lock = threading.Lock()
state = {"next": 0, "done": 0, "status": {}, "rss": {}}

def rss():
    for line in open(f"/proc/{a.pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

def worker():
    conn = http.client.HTTPConnection("127.0.0.1", a.port, timeout=60)
    while True:
        with lock:
            i = state["next"]
            if i >= len(order):
                return
            state["next"] += 1
        try:
            conn.request("GET", order[i], headers=headers)
            r = conn.getresponse()
            r.read()
            code = r.status
        except Exception:
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", a.port, timeout=60)
            code = -1
        with lock:
            state["status"][code] = state["status"].get(code, 0) + 1
            state["done"] += 1
            if a.pid and state["done"] in checkpoints:
                state["rss"][state["done"]] = rss()

t0 = time.time()
threads = [threading.Thread(target=worker) for _ in range(a.clients)]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps({"requests": a.requests, "seconds": round(time.time() - t0, 3), "status": state["status"],
                  "rss_kib": state["rss"]}))
