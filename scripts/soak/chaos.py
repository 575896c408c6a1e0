#!/usr/bin/env python3
"""The soak's schedule: warm-up, cycles of faults, calm; samples serve's process all along.

    chaos.py CONFIG.json

CONFIG (written by scripts/soak.sh): work (the run's directory), seconds (the whole run), serve_pid, serve_port,
metrics_port, cache_dir, chaos_port, good_origin (host:port), hosts (the hosts file serve reads), hosts_good (its
content with every name resolving), long (bool), kill_pid (a fleet instance to SIGKILL in the long form, or 0),
fleet_port (Varnish's, long form: every other misbehaving source goes through it),
faults (the faults to run, in order; empty: all of FAULTS).

Every fault runs alone for one phase, in the same order each cycle, while steady.py keeps asking for good sources:
  dns-flap     flap.soak.test leaves and rejoins the hosts file every 0.7 s while sources are fetched through it,
               and one source names nonexistent.invalid
  reset        the origin resets the connection, before its answer and in the middle of the body
  stall        the origin sends a head and 64 bytes, or nothing, and then waits for the client to give up
  truncated    Content-Length promises twice what is sent, then the connection closes
  lying        Content-Length under the body, HTML said to be PNG, a PNG header promising 900 MP, gzip that is not
  5xx          a storm of 500, 502 and 503 (Retry-After: 1) from four clients at once
  svg          an 8000 x 8000 PNG inside an SVG (data: URI), and a 6000 x 6000 SVG through 80 chained filters
  slow-reader  clients that read a 9 MB answer 512 bytes every 100 ms, send a request head a byte at a time, or
               connect and say nothing
  kill         (long form, once, mid-run) one fleet instance gets SIGKILL while a client goes through Varnish
Writes under `work`: schedule.jsonl (each phase: fault, start, end), samples.jsonl (once a second: RSS, threads, fds
and serve's sockets by peer), chaos.jsonl (each fault request's status), final.json (after the calm: the origin's
per-fault counters, serve's sockets, temporary files, /metrics).
"""
import glob
import http.client
import json
import os
import signal
import socket
import sys
import threading
import time
import urllib.parse

# dns-flap last: a fault that breaks every later fetch (as curl error 43 did after one unresolvable name) still leaves
# the first cycle's other faults measured on a working fetcher.
FAULTS = ["reset", "stall", "truncated", "lying", "5xx", "svg", "slow-reader", "dns-flap"]
PATHS = {
    "reset": ["reset/{n}.png", "reset-early/{n}.png"],
    "stall": ["stall/{n}.png", "stall-head/{n}.png"],
    "truncated": ["truncated/{n}.png"],
    "lying": ["lying-length/{n}.png", "lying-type/{n}.png", "lying-png/{n}.png", "lying-gzip/{n}.png"],
    "5xx": ["5xx/{n}.png"],
    "svg": ["svg-bigpng/{n}.svg", "svg-filter/{n}.svg"],
}
TCP_STATES = {"01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1", "05": "FIN_WAIT2",
              "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0A": "LISTEN",
              "0B": "CLOSING"}


def now():
    return time.time()


class Chaos:
    def __init__(self, config):
        self.c = config
        self.work = config["work"]
        self.lock = threading.Lock()
        self.counter = int(now() * 10) % 100000 * 100
        self.stop_sampling = threading.Event()
        self.files = {name: open(os.path.join(self.work, name), "a", buffering=1)
                      for name in ("schedule.jsonl", "samples.jsonl", "chaos.jsonl")}

    def log(self, name, record):
        with self.lock:
            self.files[name].write(json.dumps(record) + "\n")

    def next_n(self):
        with self.lock:
            self.counter += 1
            return self.counter

    # ---- serve's process, seen from /proc

    def sockets(self, pid):
        """serve's TCP sockets: {"inbound": [...states], "to_chaos": [...], "to_good": [...], "other": [...]}."""
        inodes = set()
        for fd in glob.glob(f"/proc/{pid}/fd/*"):
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
        found = {"inbound": [], "to_chaos": [], "to_good": [], "other": []}
        listening = {self.c["serve_port"], self.c["metrics_port"]}
        good_port = int(self.c["good_origin"].rsplit(":", 1)[1])
        for table in ("tcp", "tcp6"):
            try:
                lines = open(f"/proc/{pid}/net/{table}").read().splitlines()[1:]
            except OSError:
                continue
            for line in lines:
                fields = line.split()
                if len(fields) < 10 or fields[9] not in inodes:
                    continue
                local, remote, state = int(fields[1].rsplit(":", 1)[1], 16), int(fields[2].rsplit(":", 1)[1], 16), \
                    TCP_STATES.get(fields[3], fields[3])
                if state == "LISTEN":
                    continue
                if local in listening:
                    found["inbound"].append(state)
                elif remote == self.c["chaos_port"]:
                    found["to_chaos"].append(state)
                elif remote == good_port:
                    found["to_good"].append(state)
                else:
                    found["other"].append(f"{remote}:{state}")
        return found

    def sample(self):
        pid = self.c["serve_pid"]
        status = {}
        try:
            for line in open(f"/proc/{pid}/status"):
                key, _, value = line.partition(":")
                status[key] = value.strip()
        except OSError:
            return None
        fds, deleted = 0, []
        for fd in glob.glob(f"/proc/{pid}/fd/*"):
            fds += 1
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.endswith(" (deleted)") and target.startswith(self.c["cache_dir"]):
                deleted.append(target)
        socks = self.sockets(pid)
        return {"t": now(), "rss_kb": int(status.get("VmRSS", "0 kB").split()[0]),
                "threads": int(status.get("Threads", "0")), "fds": fds, "deleted_cache_fds": len(deleted),
                "tmp_files": len(self.temp_files()), **{k: len(v) for k, v in socks.items()}}

    def temp_files(self):
        """Named temporary files under serve's cache dir (AtomicFile's fallback and the disk cache's `.tmp-*`)."""
        found = []
        for root, _, names in os.walk(self.c["cache_dir"]):
            found += [os.path.join(root, n) for n in names if n.startswith(".tmp") or n.endswith(".tmp")]
        return found

    def sampler(self):
        while not self.stop_sampling.wait(1.0):
            record = self.sample()
            if record:
                self.log("samples.jsonl", record)

    # ---- the faults

    def get(self, path, timeout=30, port=None):
        start = now()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port or self.c["serve_port"], timeout=timeout)
            conn.request("GET", path, headers={"Connection": "close"})
            response = conn.getresponse()
            response.read()
            status = response.status
            conn.close()
        except Exception as error:  # noqa: BLE001 - the status is only logged
            status = f"{type(error).__name__}"
        return status, round((now() - start) * 1000, 1)

    def source_path(self, source, ext="png"):
        return f"/insecure/rs:fit:48:36/plain/{urllib.parse.quote(source, safe='')}@{ext}"

    def chaos_client(self, fault, until):
        chaos = f"127.0.0.1:{self.c['chaos_port']}"
        while now() < until:
            n = self.next_n()
            if fault == "dns-flap":
                source = f"http://flap.soak.test:{self.c['chaos_port']}/ok/{n}.png"
            else:
                options = PATHS[fault]
                source = f"http://{chaos}/" + options[n % len(options)].format(n=n)
            # The long form sends every other one through Varnish to the fleet.
            via = self.c.get("fleet_port") if self.c["long"] and n % 2 else None
            status, ms = self.get(self.source_path(source), port=via)
            self.log("chaos.jsonl", {"t": now(), "fault": fault, "source": source, "status": status, "ms": ms,
                                     "via": "fleet" if via else "serve"})

    def hosts_flapper(self, until):
        """flap.soak.test out of the hosts file and back every 0.7 s; the file is rewritten in place, at the same
        length (one pwrite: a concurrent lookup of the good name never sees an empty or short file)."""
        good = self.c["hosts_good"].encode()
        gone = good.replace(b"flap.soak.test", b"#lap.soak.test")
        fd = os.open(self.c["hosts"], os.O_WRONLY)
        try:
            present = True
            while now() < until:
                present = not present
                os.pwrite(fd, good if present else gone, 0)
                time.sleep(0.7)
        finally:
            os.pwrite(fd, good, 0)
            os.close(fd)

    def slow_reader(self, kind, until):
        """One misbehaving client of serve until `until` (then it closes whatever it holds)."""
        port = self.c["serve_port"]
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.settimeout(5)
            sock.connect(("127.0.0.1", port))
            if kind == "reader":
                source = f"http://{self.c['good_origin']}/good/{self.next_n() % 50}.png"
                path = f"/insecure/rs:fit:2000:1500/el:1/plain/{urllib.parse.quote(source, safe='')}@bmp"
                sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                while now() < until:
                    try:
                        if not sock.recv(512):
                            break
                    except socket.timeout:
                        pass
                    time.sleep(0.1)
            elif kind == "dribble":
                for byte in b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000:
                    if now() >= until:
                        break
                    sock.send(bytes([byte]))
                    time.sleep(0.3)
            else:  # "silent": connects, says nothing
                while now() < until:
                    time.sleep(0.2)
        except OSError:
            pass
        finally:
            sock.close()

    def run_phase(self, fault, seconds):
        start = now()
        until = start + seconds
        threads = []
        if fault == "slow-reader":
            for kind in ("reader", "reader", "reader", "dribble", "dribble", "silent", "silent"):
                threads.append(threading.Thread(target=self.slow_reader, args=(kind, until)))
        elif fault == "kill":
            os.kill(self.c["kill_pid"], signal.SIGKILL)
            threads.append(threading.Thread(target=time.sleep, args=(seconds,)))
        else:
            if fault == "dns-flap":
                threads.append(threading.Thread(target=self.hosts_flapper, args=(until,)))
                threading.Thread(target=self.unresolvable, daemon=True).start()
            clients = 4 if fault == "5xx" else 3
            threads += [threading.Thread(target=self.chaos_client, args=(fault, until)) for _ in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.log("schedule.jsonl", {"fault": fault, "start": start, "end": now()})

    def unresolvable(self):
        status, ms = self.get(self.source_path("http://nonexistent.invalid/x.png"))
        self.log("chaos.jsonl", {"t": now(), "fault": "dns-flap", "source": "http://nonexistent.invalid/x.png",
                                 "status": status, "ms": ms})

    # ---- the run

    def plan(self):
        """[(fault, seconds)]: warm-up, cycles of every fault (kill once, mid-run, in the long form), calm."""
        total = float(self.c["seconds"])
        warmup, calm = min(30.0, max(10.0, total * 0.08)), min(60.0, max(20.0, total * 0.15))
        storm = total - warmup - calm
        faults = self.c.get("faults") or FAULTS
        cycles = max(2, int(storm // (len(faults) * 3.5)))
        phase = storm / (cycles * len(faults))
        steps = [("warmup", warmup)]
        for cycle in range(cycles):
            steps += [(fault, phase) for fault in faults]
            if self.c["long"] and self.c.get("kill_pid") and cycle == cycles // 2:
                steps.append(("kill", phase))
        return steps + [("calm", calm)]

    def run(self):
        sampler = threading.Thread(target=self.sampler)
        sampler.start()
        try:
            for fault, seconds in self.plan():
                if fault in ("warmup", "calm"):
                    start = now()
                    time.sleep(seconds)
                    self.log("schedule.jsonl", {"fault": fault, "start": start, "end": now()})
                else:
                    self.run_phase(fault, seconds)
        finally:
            self.stop_sampling.set()
            sampler.join()

    def final(self, stats_of_origin):
        """After the steady client stopped: what is still open, left behind or counted."""
        time.sleep(2)
        pid = self.c["serve_pid"]
        sample, sockets = self.sample(), self.sockets(pid)  # before the /metrics request adds a connection
        metrics = ""
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.c["metrics_port"], timeout=10)
            conn.request("GET", "/metrics")
            metrics = conn.getresponse().read().decode()
            conn.close()
        except Exception:  # noqa: BLE001 - a dead metrics listener shows as an empty text
            pass
        record = {"t": now(), "sample": sample, "sockets": sockets, "temp_files": self.temp_files(),
                  "origin": stats_of_origin, "metrics": metrics, "alive": os.path.exists(f"/proc/{pid}/status")}
        with open(os.path.join(self.work, "final.json"), "w") as f:
            json.dump(record, f)


def origin_stats(port):
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/_stats")
        stats = json.loads(conn.getresponse().read())
        conn.close()
        return stats
    except Exception as error:  # noqa: BLE001
        return {"error": str(error)}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    config = json.load(open(sys.argv[1]))
    chaos = Chaos(config)
    chaos.run()
    open(os.path.join(config["work"], "stop"), "w").close()  # steady.py stops
    time.sleep(3)
    chaos.final(origin_stats(config["chaos_port"]))


if __name__ == "__main__":
    main()
