#!/usr/bin/env python3
"""Checker for bench/serve/shutdown: C clients request PATHS (keep-alive, raw sockets) until the server is gone,
and classify every response that STARTED (its status line arrived):

    complete  body length == Content-Length, and Pillow decodes it
    short     the connection ended before Content-Length bytes (the failure this bench exists to catch)
    bad       complete length but Pillow cannot decode it
and connections that were refused or closed before any byte of a response (allowed: the server stopped accepting).

    shutdown_check.py --port P --paths FILE --clients C [--slow] [--ready-file F]
                                                         → JSON on stdout when every client has stopped

--slow reads each body in 16 KiB steps with a 1 ms pause (a slow client), so large bodies are in flight at SIGTERM.
"""
import argparse, io, json, os, socket, threading, time

from PIL import Image

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--paths", required=True)
ap.add_argument("--clients", type=int, default=8)
ap.add_argument("--slow", action="store_true")
ap.add_argument("--ready-file", help="created when the first response head has arrived (the load is on)")
a = ap.parse_args()
paths = [l.strip() for l in open(a.paths) if l.strip()]
lock = threading.Lock()
counts = {"complete": 0, "short": 0, "bad": 0, "refused_or_closed_before_response": 0, "non_200": 0}
examples = []


def note(kind, detail=None):
    with lock:
        counts[kind] += 1
        if detail and len(examples) < 10:
            examples.append(detail)


def read_response(sock, buf):
    """→ (status, headers, body, complete) or None when the connection ended before a status line."""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        buf += chunk
    head, _, body = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    if a.ready_file and not os.path.exists(a.ready_file):
        open(a.ready_file, "w").close()
    headers = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    length = int(headers.get("content-length", "0"))
    body = bytearray(body)
    while len(body) < length:
        chunk = sock.recv(16384 if a.slow else 262144)
        if not chunk:
            return status, headers, bytes(body), False
        body += chunk
        if a.slow:
            time.sleep(0.001)
    return status, headers, bytes(body[:length]), True


def client(index):
    i = index
    while True:
        try:
            sock = socket.create_connection(("127.0.0.1", a.port), timeout=60)
        except OSError:
            note("refused_or_closed_before_response")
            return  # the server no longer accepts: this client is done
        try:
            while True:
                path = paths[i % len(paths)]
                i += a.clients
                sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
                try:
                    result = read_response(sock, b"")
                except (ConnectionResetError, BrokenPipeError):
                    result = None
                if result is None:
                    note("refused_or_closed_before_response")
                    break
                status, headers, body, complete = result
                if not complete:
                    note("short", f"{path}: {len(body)} of {headers.get('content-length')} bytes")
                    break
                if status != 200:
                    note("non_200", f"{path}: {status}")
                else:
                    try:
                        Image.open(io.BytesIO(body)).load()
                        note("complete")
                    except Exception as e:  # noqa: BLE001 - any decode failure is a finding
                        note("bad", f"{path}: {e}")
                if headers.get("connection", "").lower() == "close":
                    break
        finally:
            sock.close()


threads = [threading.Thread(target=client, args=(n,)) for n in range(a.clients)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps({"counts": counts, "examples": examples}))
