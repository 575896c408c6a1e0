#!/usr/bin/env python3
"""The soak's steady client: asks `dwfetch serve` for good sources, checks every answer, logs each request.

    steady.py SERVE_PORT GOOD_ORIGIN STOP_FILE OUT.jsonl [--rate N] [--label L]

GOOD_ORIGIN is host:port of origin.py's good origin (a name the hosts file keeps resolving). Until STOP_FILE exists,
two threads send about N requests a second in all (default 16): three in four repeat a URL that was already answered
200 (a cache hit: the variant is in serve's memory cache), one in four is a new source (a download through libcurl, so
a fetcher that breaks shows at once). Every answer must be 200 and a PNG of the asked size whose four quadrants have
the source's colours (origin.quadrant_colours). One JSON line a request: t (epoch s), label, kind (hit|new), url,
status, ms (client-side, connect to last byte), ok, why.
"""
import http.client
import io
import json
import os
import random
import sys
import threading
import time
import urllib.parse

from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from origin import quadrant_colours  # noqa: E402

SIZES = [(32, 24), (48, 36), (40, 30)]


def proxy_path(origin, n, size):
    source = urllib.parse.quote(f"http://{origin}/good/{n}.png", safe="")
    return f"/insecure/rs:fit:{size[0]}:{size[1]}/plain/{source}@png"


def check(body, n, size):
    """None when the body is the expected picture, else why not."""
    try:
        image = Image.open(io.BytesIO(body))
        image.load()
    except Exception as error:  # noqa: BLE001 - any decode failure is the finding
        return f"not a picture: {error}"
    if image.format != "PNG" or image.size != size:
        return f"{image.format} {image.size}, wanted PNG {size}"
    rgb = image.convert("RGB")
    w, h = size
    for q, want in enumerate(quadrant_colours(n)):
        got = rgb.getpixel(((q % 2) * w // 2 + w // 4, (q // 2) * h // 2 + h // 4))
        if max(abs(a - b) for a, b in zip(got, want)) > 3:
            return f"quadrant {q} is {got}, wanted {want}"
    return None


class Steady:
    def __init__(self, port, origin, stop_file, out, rate, label):
        self.port, self.origin, self.stop_file, self.rate, self.label = port, origin, stop_file, rate, label
        self.out = open(out, "a", buffering=1)
        self.lock = threading.Lock()
        self.served = []  # (n, size) answered 200 and right
        self.next_n = int(time.time() * 10) % 100000 * 10  # new sources per run: a restarted soak misses the cache

    def pick(self):
        with self.lock:
            if self.served and random.random() < 0.75:
                return ("hit",) + random.choice(self.served)
            self.next_n += 1
            return "new", self.next_n, random.choice(SIZES)

    def one(self):
        kind, n, size = self.pick()
        path = proxy_path(self.origin, n, size)
        start = time.time()
        status, why = 0, None
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            conn.request("GET", path, headers={"Connection": "close"})
            response = conn.getresponse()
            body = response.read()
            status = response.status
            conn.close()
            why = check(body, n, size) if status == 200 else body[:200].decode("latin-1").strip()
        except Exception as error:  # noqa: BLE001 - a refused or dropped connection is a failed request
            why = f"{type(error).__name__}: {error}"
        ms = (time.time() - start) * 1000
        ok = status == 200 and why is None
        if ok and kind == "new":
            with self.lock:
                self.served.append((n, size))
        line = {"t": start, "label": self.label, "kind": kind, "url": path, "status": status, "ms": round(ms, 2),
                "ok": ok, "why": why}
        with self.lock:
            self.out.write(json.dumps(line) + "\n")

    def worker(self):
        interval = 2.0 / self.rate  # two workers
        while not os.path.exists(self.stop_file):
            started = time.monotonic()
            self.one()
            time.sleep(max(0.0, interval - (time.monotonic() - started)) * random.uniform(0.5, 1.5))


def main():
    args = sys.argv[1:]
    rate, label = 16.0, "serve"
    if "--rate" in args:
        i = args.index("--rate")
        rate = float(args[i + 1])
        del args[i:i + 2]
    if "--label" in args:
        i = args.index("--label")
        label = args[i + 1]
        del args[i:i + 2]
    if len(args) != 4:
        sys.exit(__doc__)
    steady = Steady(int(args[0]), args[1], args[2], args[3], rate, label)
    threads = [threading.Thread(target=steady.worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


if __name__ == "__main__":
    main()
