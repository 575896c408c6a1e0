#!/usr/bin/env python3
"""bench/pixels/bench.py: the timings behind bench/pixels/run (see there). Writes bench/out/pixels.md."""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--dwfetch", required=True)
ap.add_argument("--pixbench", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--count", type=int, required=True)
ap.add_argument("--port", type=int, required=True, help="loopback nginx serving --corpus (bench/pixels/run starts it)")
ap.add_argument("--out", required=True)
args = ap.parse_args()

QUICK = os.environ.get("BENCH_QUICK") == "1"
RUNS = int(os.environ.get("BENCH_RUNS", "3" if QUICK else "11"))
CORPUS_RUNS = int(os.environ.get("BENCH_CORPUS_RUNS", "1" if QUICK else "3"))
COUNT = args.count
CORES = os.cpu_count() or 2
here = os.path.dirname(os.path.abspath(__file__))
work = os.path.join(args.out, "pixels")
os.makedirs(work, exist_ok=True)


def log(*a):
    print("[pixels]", *a, file=sys.stderr, flush=True)


def run_measured(cmd, env=None, quiet_failure=False):
    """wall, cpu, maxrss of one child process, via wait4."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    out = p.stdout.read().decode()
    err = p.stderr.read().decode()
    if status != 0 and not quiet_failure:
        log("FAILED:", " ".join(cmd), err[-500:])
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_kb": ru.ru_maxrss, "out": out, "ok": status == 0}


def med(values):
    return statistics.median(values) if values else float("nan")


# ------------------------------------------------------------------ 1. one 12 MP JPEG
big = os.path.join(work, "photo-12mp.jpg")
if not os.path.exists(big):
    log("making the 12 MP JPEG")
    subprocess.run([sys.executable, "-c", f"""
import numpy as np
from PIL import Image
h, w = 3000, 4000
rng = np.random.default_rng(20261123)
y, x = np.mgrid[0:h, 0:w].astype(np.float32)
base = np.stack([128 + 100 * np.sin(x / (300 + i * 50) + y / (400 - i * 60) + i) for i in range(3)], axis=-1)
noise = rng.normal(0, 18, size=(h, w, 3)).astype(np.float32)
Image.fromarray(np.clip(base + noise, 0, 255).astype(np.uint8)).save({big!r}, quality=90)
"""], check=True)

pillow_one = f"""
import sys
from PIL import Image
im = Image.open(sys.argv[1]); im.thumbnail((512, 512)); im.save(sys.argv[2], quality=80, optimize=True)
"""
pillow_loop = f"""
import sys, time, statistics
from PIL import Image
times = []
for _ in range(int(sys.argv[3])):
    t = time.perf_counter()
    im = Image.open(sys.argv[1]); im.thumbnail((512, 512)); im.save(sys.argv[2], quality=80, optimize=True)
    times.append((time.perf_counter() - t) * 1000)
print("median_ms %.2f" % statistics.median(times))
"""
tools = {
    "dwwebimage (pixbench, 1 thread)": [args.pixbench, "thumb", big, os.path.join(work, "o-dw.jpg"), "512"],
    "dwwebimage (pixbench, 2 threads)": [args.pixbench, "thumb", big, os.path.join(work, "o-dw2.jpg"), "512",
                                          "--threads", "2"],
    "vipsthumbnail": ["vipsthumbnail", big, "-s", "512x512", "-o",
                      os.path.join(work, "o-vips.jpg") + "[Q=80,optimize_coding,strip]"],
    "Pillow thumbnail()+save": [sys.executable, "-c", pillow_one, big, os.path.join(work, "o-pil.jpg")],
}
single = {name: [] for name in tools}
log(f"12 MP JPEG: {RUNS} interleaved runs of {len(tools)} tools")
names = list(tools)
for r in range(RUNS):
    for name in names[r % len(names):] + names[:r % len(names)]:
        single[name].append(run_measured(tools[name]))
# Startup baselines (process start, runtime and library init, no image): what the RSS column is on top of.
startup = {
    "dwwebimage (pixbench, 1 thread)": med([run_measured([args.pixbench, "thumb", "/nonexistent", "/dev/null", "1"], quiet_failure=True)["rss_kb"]
                                            for _ in range(3)]),
    "vipsthumbnail": med([run_measured(["vips", "--version"])["rss_kb"] for _ in range(3)]),
    "Pillow thumbnail()+save": med([run_measured([sys.executable, "-c", "from PIL import Image"])["rss_kb"] for _ in range(3)]),
}
inproc = {
    "dwwebimage (pixbench, 1 thread)": run_measured([args.pixbench, "thumb", big, os.path.join(work, "o-dw.jpg"), "512",
                                                     "--repeat", str(RUNS)])["out"],
    "Pillow thumbnail()+save": run_measured([sys.executable, "-c", pillow_loop, big, os.path.join(work, "o-pil.jpg"),
                                             str(RUNS)])["out"],
}

# ------------------------------------------------------------------ 2. the corpus
log("corpus")
small = os.path.join(args.corpus, "small")
files = sorted(os.listdir(small))[:COUNT]
files_dir = os.path.join(work, "corpus-in")
shutil.rmtree(files_dir, ignore_errors=True)
os.makedirs(files_dir)
for f in files:
    os.symlink(os.path.join(small, f), os.path.join(files_dir, f))

urls = os.path.join(work, "urls.txt")
open(urls, "w").write("".join(f"http://127.0.0.1:{args.port}/small/{f}\n" for f in files))

pillow_dir = """
import os, sys
from multiprocessing import Pool
from PIL import Image
src, dst = sys.argv[1], sys.argv[2]
def one(name):
    im = Image.open(os.path.join(src, name)); im.thumbnail((256, 256))
    fmt = im.format or Image.open(os.path.join(src, name)).format
    if name.endswith(".jpg"):
        im.save(os.path.join(dst, name), quality=80, optimize=True)   # the settings dwfetch uses
    else:
        im.save(os.path.join(dst, name))
if __name__ == "__main__":
    os.makedirs(dst, exist_ok=True)
    with Pool(int(sys.argv[3])) as p:
        p.map(one, sorted(os.listdir(src)), chunksize=16)
"""


def vips_dir(dst):
    """vipsthumbnail over the files, each in its own format, CORES processes (xargs -P)."""
    os.makedirs(dst, exist_ok=True)
    opts = {"jpg": "[Q=80,optimize_coding,strip]", "png": "[strip]", "gif": "[strip,effort=4]"}
    script = "; ".join(f"cd {files_dir} && ls *.{ext} | xargs -P {CORES} -n 50 vipsthumbnail -s 256x256 "
                       f"-o '{dst}/%s.{ext}{opt}'" for ext, opt in opts.items())
    return ["bash", "-c", script]


corpus_tools = {
    "dwfetch --resize 256x256 (HTTP, cold cache)": lambda d: [args.dwfetch, "-q", "-j", "6", "--cache-dir",
                                                              os.path.join(d, "cache"), "-o", os.path.join(d, "out"),
                                                              "--resize", "256x256", "-i", urls],
    "pixbench (files, library only)": lambda d: [args.pixbench, "dir", files_dir, os.path.join(d, "out"), "256",
                                                 "--jobs", str(CORES)],
    "vipsthumbnail (files)": lambda d: vips_dir(os.path.join(d, "out")),
    "Pillow thumbnail()+save (files)": lambda d: [sys.executable, "-c", pillow_dir, files_dir, os.path.join(d, "out"),
                                                   str(CORES)],
}
corpus = {name: [] for name in corpus_tools}
cnames = list(corpus_tools)
for r in range(CORPUS_RUNS):
    for name in cnames[r % len(cnames):] + cnames[:r % len(cnames)]:
        d = tempfile.mkdtemp(dir=work, prefix="run-")
        m = run_measured(corpus_tools[name](d))
        produced = sum(len(fs) for _, _, fs in os.walk(os.path.join(d, "out")))
        m["produced"] = produced
        corpus[name].append(m)
        shutil.rmtree(d, ignore_errors=True)
        log(f"  {name}: {m['wall']:.2f} s, {produced} files")

# ------------------------------------------------------------------ report
rev = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
vips_version = subprocess.run(["vips", "--version"], capture_output=True, text=True).stdout.strip()
import PIL
load = os.getloadavg()
lines = [f"## Pixels (`bench/pixels/run`, commit {rev}, {time.strftime('%Y-%m-%d')}, {CORES} cores, {vips_version}, "
         f"Pillow {PIL.__version__}, load average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f})", "",
         f"**12 MP JPEG (4000×3000, {os.path.getsize(big) // 1024} KB) → fit 512×512, JPEG q80**, one process per image, "
         f"medians of {RUNS} interleaved runs:", "",
         "| tool | wall ms | × vipsthumbnail | × Pillow | CPU ms | peak RSS MB (startup) | in-process ms/image |",
         "|---|---|---|---|---|---|---|"]
vw = med([m["wall"] for m in single["vipsthumbnail"]])
pw = med([m["wall"] for m in single["Pillow thumbnail()+save"]])
for name in names:
    w = med([m["wall"] for m in single[name]])
    c = med([m["cpu"] for m in single[name]])
    rss = med([m["rss_kb"] for m in single[name]]) / 1024
    base = startup.get(name) or startup.get(name.replace("2 threads", "1 thread"))
    ip = inproc.get(name, "").replace("median_ms", "").strip() or "–"
    lines.append(f"| {name} | {w * 1000:.0f} | {w / vw:.2f} | {w / pw:.2f} | {c * 1000:.0f} | {rss:.1f} "
                 f"({base / 1024:.1f}) | {ip} |" if base else
                 f"| {name} | {w * 1000:.0f} | {w / vw:.2f} | {w / pw:.2f} | {c * 1000:.0f} | {rss:.1f} | {ip} |")
lines += ["", f"**{COUNT}-image corpus → fit 256×256** (each file in its own format; {CORES} workers each; medians of "
          f"{CORPUS_RUNS} runs):", "",
          "| tool | images/s | wall s | CPU ms/image | peak RSS MB | files out |", "|---|---|---|---|---|---|"]
for name in cnames:
    ms = corpus[name]
    w = med([m["wall"] for m in ms])
    c = med([m["cpu"] for m in ms])
    lines.append(f"| {name} | {COUNT / w:.0f} | {w:.2f} | {c * 1000 / COUNT:.2f} | "
                 f"{med([m['rss_kb'] for m in ms]) / 1024:.0f} | {ms[-1]['produced']} |")
text = "\n".join(lines) + "\n"
open(os.path.join(args.out, "pixels.md"), "w").write(text)
print(text)
