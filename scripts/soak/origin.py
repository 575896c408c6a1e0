#!/usr/bin/env python3
"""The soak's origins: one good, one that misbehaves (scripts/soak.sh starts both).

    origin.py good  PORT_FILE     /good/<n>.png: a 64 x 48 PNG of four solid quadrants whose colours depend on n
    origin.py chaos PORT_FILE     /<fault>/<n>.<ext>: a source that misbehaves as <fault> says (FAULTS below)

Each listens on 127.0.0.1 on a free port it writes to PORT_FILE. Raw sockets, one thread per connection, so every
fault is exact (a reset is an RST, a stall holds the socket). GET /_stats answers JSON: per fault the requests seen,
the connections open now and the most open at once. A connection counts as open from accept until the peer closes
it (or the stall gives up after STALL_LIMIT seconds): "open now" back at zero after the storm means the server under
test closed every connection it was sent.
"""
import base64
import io
import json
import os
import socket
import struct
import sys
import threading
import time
import zlib

from PIL import Image

STALL_LIMIT = 60.0  # a stalled connection the client never closes is dropped after this long (then counted as leaked)


def quadrant_colours(n):
    """The four colours (top-left, top-right, bottom-left, bottom-right) of good source n."""
    return [((n * 37 + q * 61) % 256, (n * 91 + q * 17 + 80) % 256, (n * 53 + q * 113 + 160) % 256) for q in range(4)]


def good_png(n, width=64, height=48):
    image = Image.new("RGB", (width, height))
    colours = quadrant_colours(n)
    for q, colour in enumerate(colours):
        x0, y0 = (q % 2) * width // 2, (q // 2) * height // 2
        image.paste(colour, (x0, y0, x0 + width // 2, y0 + height // 2))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def lying_png(width=30000, height=30000):
    """A PNG whose header promises 900 MP and whose data is a few bytes: the decoder must refuse it, not allocate."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(b"\0" * 1024))
            + png_chunk(b"IEND", b""))


def big_flat_png(side):
    """A side x side one-colour PNG, built row by row (compresses to a few hundred KB at 8000 x 8000)."""
    rows = (b"\0" + b"\x7f\x20\x90" * side) * 100
    compressor = zlib.compressobj(6)
    data = b"".join(compressor.compress(rows) for _ in range(side // 100)) + compressor.flush()
    ihdr = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", data) + png_chunk(b"IEND", b"")


def svg_with_big_png():
    embedded = base64.b64encode(big_flat_png(8000)).decode()
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="8000" '
            f'height="8000"><image width="8000" height="8000" xlink:href="data:image/png;base64,{embedded}"/>'
            f'</svg>').encode()


def svg_filter_chain(steps=40):
    filters = "".join(f'<feGaussianBlur in="{"SourceGraphic" if i == 0 else f"b{i - 1}"}" stdDeviation="60" '
                      f'result="b{i}"/><feMorphology in="b{i}" operator="dilate" radius="40" result="b{i}"/>'
                      for i in range(steps))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="6000" height="6000"><defs><filter id="f" x="-50%" '
            f'y="-50%" width="200%" height="200%" filterUnits="userSpaceOnUse">{filters}</filter></defs>'
            f'<rect width="6000" height="6000" fill="#4080c0" filter="url(#f)"/>'
            f'<circle cx="3000" cy="3000" r="2500" fill="#c04080" filter="url(#f)"/></svg>').encode()


class Origin:
    def __init__(self, mode):
        self.mode = mode
        self.lock = threading.Lock()
        self.stats = {}
        self.good_cache = {}
        self.svg_big_ready = threading.Event()
        if mode == "chaos":
            self.svg_filter = svg_filter_chain()
            self.lying = lying_png()
            threading.Thread(target=self.make_svg_big, daemon=True).start()

    def make_svg_big(self):
        self.svg_big = svg_with_big_png()  # seconds of zlib: made while the soak warms up
        self.svg_big_ready.set()

    def count(self, fault, opened):
        with self.lock:
            s = self.stats.setdefault(fault, {"requests": 0, "open": 0, "max_open": 0, "dropped": 0})
            if opened:
                s["requests"] += 1
                s["open"] += 1
                s["max_open"] = max(s["max_open"], s["open"])
            else:
                s["open"] -= 1

    def good(self, n):
        with self.lock:
            body = self.good_cache.get(n)
        if body is None:
            body = good_png(n)
            with self.lock:
                self.good_cache[n] = body
        return body

    def serve_forever(self, port_file):
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(512)
        with open(port_file + ".tmp", "w") as f:
            f.write(str(listener.getsockname()[1]))
        os.rename(port_file + ".tmp", port_file)
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=self.connection, args=(conn,), daemon=True).start()

    def connection(self, conn):
        try:
            conn.settimeout(30)
            buffer = b""
            while True:  # keep-alive for the good origin; every fault closes after one answer
                while b"\r\n\r\n" not in buffer:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buffer += chunk
                head, buffer = buffer.split(b"\r\n\r\n", 1)
                path = head.split(b"\r\n", 1)[0].split(b" ")[1].decode("latin-1")
                if path == "/_stats":
                    with self.lock:
                        body = json.dumps(self.stats).encode()
                    send(conn, 200, body, "application/json")
                    continue
                if self.mode == "good":
                    if not self.answer_good(conn, path):
                        return
                    continue
                fault = path.split("/")[1] if path.count("/") >= 2 else "unknown"
                self.count(fault, True)
                try:
                    self.answer_fault(conn, fault)
                finally:
                    self.count(fault, False)
                return
        except OSError:
            return
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def answer_good(self, conn, path):
        parts = path.split("?")[0].split("/")
        if len(parts) == 3 and parts[1] == "good" and parts[2].endswith(".png"):
            self.count("good", True)
            self.count("good", False)
            send(conn, 200, self.good(int(parts[2].split(".")[0])), "image/png", keep_alive=True)
            return True
        send(conn, 404, b"not here\n", "text/plain")
        return False

    def answer_fault(self, conn, fault):
        good = self.good(7)
        if fault == "ok":  # served by the name that stops and starts resolving
            send(conn, 200, good, "image/png")
        elif fault == "reset":  # the answer starts, then an RST
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: %d\r\n\r\n" % len(good)
                         + good[:len(good) // 3])
            reset(conn)
        elif fault == "reset-early":  # RST before a byte of answer
            reset(conn)
        elif fault == "stall":  # head and a few bytes, then nothing until the client gives up
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: %d\r\n\r\n" % len(good)
                         + good[:64])
            self.hold(conn, fault)
        elif fault == "stall-head":  # not even a status line
            self.hold(conn, fault)
        elif fault == "truncated":  # Content-Length promises more than is sent
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: %d\r\n"
                         b"Connection: close\r\n\r\n" % len(good) + good[:len(good) // 2])
        elif fault == "lying-length":  # Content-Length says less than the body (and less than the image)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 100\r\n"
                         b"Connection: close\r\n\r\n" + good)
        elif fault == "lying-type":  # says PNG, is HTML
            send(conn, 200, b"<html><body>" + b"not an image " * 500 + b"</body></html>", "image/png")
        elif fault == "lying-png":  # a PNG header promising 900 MP over a few bytes of data
            send(conn, 200, self.lying, "image/png")
        elif fault == "lying-gzip":  # Content-Encoding: gzip over bytes that are not gzip
            send(conn, 200, good, "image/png", extra=b"Content-Encoding: gzip\r\n")
        elif fault == "5xx":  # a storm of server errors
            status = (500, 502, 503)[int(time.time() * 1000) % 3]
            send(conn, status, b"storm\n", "text/plain", extra=b"Retry-After: 1\r\n")
        elif fault == "svg-bigpng":
            self.svg_big_ready.wait()
            send(conn, 200, self.svg_big, "image/svg+xml")
        elif fault == "svg-filter":
            send(conn, 200, self.svg_filter, "image/svg+xml")
        else:
            send(conn, 404, b"no such fault\n", "text/plain")

    def hold(self, conn, fault):
        """Keeps the socket open until the client closes it, or STALL_LIMIT (then counted as dropped)."""
        conn.settimeout(1.0)
        deadline = time.monotonic() + STALL_LIMIT
        while time.monotonic() < deadline:
            try:
                if not conn.recv(4096):
                    return
            except socket.timeout:
                continue
            except OSError:
                return
        with self.lock:
            self.stats[fault]["dropped"] += 1


def send(conn, status, body, content_type, keep_alive=False, extra=b""):
    reason = {200: b"OK", 404: b"Not Found", 500: b"Internal Server Error", 502: b"Bad Gateway",
              503: b"Service Unavailable"}[status]
    connection = b"keep-alive" if keep_alive else b"close"
    conn.sendall(b"HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: %s\r\n%s\r\n"
                 % (status, reason, content_type.encode(), len(body), connection, extra) + body)


def reset(conn):
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("good", "chaos"):
        sys.exit(__doc__)
    Origin(sys.argv[1]).serve_forever(sys.argv[2])
