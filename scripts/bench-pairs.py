#!/usr/bin/env python3
"""Paired runs of the tributary CLI on the shapes of scripts/bench-compare.sh,
timed to the millisecond (bench-compare.sh prints hundredths of a second,
too coarse for a 0.15 s run and for a ratio of two such runs).

  scripts/bench-pairs.py pairs N FORMAT SHAPE THREADS BIN_A BIN_B
      N alternated pairs (A,B then B,A) of two binaries on one shape:
      medians, minima and the median of the paired differences (B - A) of
      wall time, CPU (user + sys, wait4) and peak RSS. Each binary is
      copied to COPIES files (default 4) and the pairs go round the
      copies: on this machine two copies of one binary can differ by 3 %
      in a run's CPU time, every run (where a file's pages land), which
      one copy of each would take for the difference between A and B.
  scripts/bench-pairs.py ratio N BIN [FORMAT ...]
      for each format (json csv) and shape (SHAPES, default "big mid
      small"), N alternated runs at 1 and 2 threads (GOMAXPROCS): min and
      median wall, the two-thread speed-up of the minima and of the
      medians, CPU, peak RSS. With CEILING=1 each round also runs two
      1-thread conversions at once (twice's measure, below, taken in the
      same rounds, so under the same state of the host): the ceiling 2/s
      from the medians, and the speed-up's share of it. SHAPES may also name big10 (the big file's
      rows ten times, ~1 GB, in one file) and small10 (the small shape's
      files ten times over, 100,000 files): the same conversion with ten
      times the input, so that what every run pays once (start-up, the
      listing's first steps, the data file's final fsync, the commit)
      weighs a tenth as much; cut from the shapes on first use.
  scripts/bench-pairs.py twice N BIN FORMAT SHAPE
      the machine's own ceiling for that speed-up: one 1-thread run alone
      against two independent 1-thread runs at the same time (each its own
      table), N times each; the slowdown s of a run that shares the machine
      bounds what two threads can give at 2/s, whatever the software.

Each run converts the shape into a new table and checkpoint, as
bench-compare.sh does, after reading the input once (the page cache warm).
The shapes are the ones bench-compare.sh cuts (run it once first); the
cache is TRIBUTARY_BENCH_CACHE or .cache/bench in the repository.
"""
import os
import shutil
import statistics as st
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("TRIBUTARY_BENCH_CACHE", os.path.join(ROOT, ".cache", "bench"))


def shape_dir(fmt, shape):
    root = os.path.join(CACHE, "shapes-csv-v1" if fmt == "csv" else "shapes-v1")
    d = os.path.join(root, shape)
    if shape in SCALED and not os.path.isfile(os.path.join(d, "_rows")):
        scale(fmt, root, shape)
    if not os.path.isdir(d):
        sys.exit(f"no {fmt} shape {shape} under {CACHE}: run FORMAT={fmt} scripts/bench-compare.sh 1 first")
    return d


# The scaled shapes: name -> (the shape they repeat, how many times).
SCALED = {"big10": ("big", 10), "small10": ("small", 10)}


def scale(fmt, root, shape):
    """Cuts a scaled shape from its base shape: big10 is one file holding
    the big file's rows ten times (a CSV header once), small10 the small
    shape's files ten times under new names."""
    base, times = SCALED[shape]
    src = os.path.join(root, base)
    if not os.path.isfile(os.path.join(src, "_rows")):
        sys.exit(f"no {fmt} shape {base} under {CACHE}: run FORMAT={fmt} scripts/bench-compare.sh 1 first")
    dst = os.path.join(root, shape)
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    names = sorted(n for n in os.listdir(src) if not n.startswith("_"))
    total = 0
    if base == "big":
        (name,) = names
        data = open(os.path.join(src, name), "rb").read()
        header, body = b"", data
        if fmt == "csv":
            i = data.index(b"\n") + 1
            header, body = data[:i], data[i:]
        with open(os.path.join(dst, name), "wb") as out:
            out.write(header)
            for _ in range(times):
                out.write(body)
        total = len(header) + times * len(body)
    else:
        for k in range(times):
            for name in names:
                stem, ext = os.path.splitext(name)
                shutil.copyfile(os.path.join(src, name), os.path.join(dst, f"{stem}-{k}{ext}"))
                total += os.path.getsize(os.path.join(src, name))
    rows = int(open(os.path.join(src, "_rows")).read()) * times
    open(os.path.join(dst, "_rows"), "w").write(str(rows))
    open(os.path.join(dst, "_bytes"), "w").write(str(total))
    # The copies' writeback would otherwise run under the first timed runs
    # (one two-thread run of small10 took 1.55 s instead of 1.32).
    os.sync()


def warm(src):
    """Reads the input once, so that every run finds it in the page cache."""
    for root, _, files in os.walk(src):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                while fh.read(1 << 20):
                    pass


def start(binary, fmt, shape, threads, work):
    """Starts one conversion into a new table under work: (process, start time)."""
    src = shape_dir(fmt, shape)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    args = [binary, "run", "--source", src, "--table", os.path.join(work, "out"),
            "--checkpoint", os.path.join(work, "checkpoint"),
            "--option", "cloudFiles.format=" + fmt, "--option", "cloudFiles.inferColumnTypes=true",
            "--option", "cloudFiles.maxFilesPerTrigger=100000"]
    if fmt == "csv":
        args += ["--option", "header=true"]
    env = dict(os.environ, GOMAXPROCS=str(threads))
    t = time.perf_counter()
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), t


def finish(proc, t, what):
    """Waits for a started conversion: (wall s, cpu s, peak RSS MB)."""
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if status != 0:
        sys.exit(f"{what} failed:\n{err}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def run(binary, fmt, shape, threads, work):
    """One timed conversion, the input warm: (wall s, cpu s, peak RSS MB)."""
    warm(shape_dir(fmt, shape))
    p, t = start(binary, fmt, shape, threads, work)
    return finish(p, t, f"{binary} on {fmt} {shape} at {threads} threads")


def copies(binary, k, work, tag):
    """k copies of binary in work (new files: new pages for its text)."""
    out = []
    for i in range(k):
        c = os.path.join(work, f"bin-{tag}{i}")
        shutil.copy2(binary, c)
        out.append(c)
    return out


def pairs(n, fmt, shape, threads, a, b, work):
    k = max(1, int(os.environ.get("COPIES", "4")))
    bins = work + ".bin"  # beside work, which every run empties
    os.makedirs(bins, exist_ok=True)
    ca, cb = copies(a, k, bins, "a"), copies(b, k, bins, "b")
    ra, rb = [], []
    for i in range(n):
        x, y = ca[i % k], cb[i % k]
        if i % 2 == 0:
            ra.append(run(x, fmt, shape, threads, work))
            rb.append(run(y, fmt, shape, threads, work))
        else:
            rb.append(run(y, fmt, shape, threads, work))
            ra.append(run(x, fmt, shape, threads, work))
    print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} load {os.getloadavg()[0]:.2f}; "
          f"{fmt} {shape} {threads} threads; {n} pairs over {k} copies of each; A {a}; B {b}")
    for k, name in enumerate(["wall s", "cpu s", "rss MB"]):
        x = [r[k] for r in ra]
        y = [r[k] for r in rb]
        d = [q - p for p, q in zip(x, y)]
        print(f"{name:6s}  A med {st.median(x):8.3f} min {min(x):8.3f} | B med {st.median(y):8.3f} min {min(y):8.3f}"
              f" | B-A med {st.median(d):+8.3f}, B lower in {sum(v < 0 for v in d)}/{n}")


def ratio(n, binary, formats, work):
    ceiling = os.environ.get("CEILING", "") not in ("", "0")
    print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} load {os.getloadavg()[0]:.2f}; {binary}; {n} rounds"
          + ("; with the machine's ceiling in the same rounds" if ceiling else ""))
    print("format shape  1t min / med s   2t min / med s   2t/1t min (med)   cpu s 1t -> 2t   RSS MB 1t / 2t"
          + ("   ceiling (med)   2t/1t med / ceiling" if ceiling else ""))
    for fmt in formats:
        for shape in os.environ.get("SHAPES", "big mid small").split():
            r = {1: [], 2: []}
            shared = []
            for i in range(n):
                for th in ((1, 2) if i % 2 == 0 else (2, 1)):
                    r[th].append(run(binary, fmt, shape, th, work))
                if ceiling:
                    # In the same round: what the machine gives two at that time.
                    shared += [x[0] for x in two_at_once(binary, fmt, shape, work)]
            w = {t: [x[0] for x in r[t]] for t in r}
            cpu = {t: st.median(x[1] for x in r[t]) for t in r}
            rss = {t: max(x[2] for x in r[t]) for t in r}
            line = (f"{fmt:6s} {shape:5s}  {min(w[1]):.3f} / {st.median(w[1]):.3f}    {min(w[2]):.3f} / {st.median(w[2]):.3f}"
                    f"    {min(w[1]) / min(w[2]):.2f} ({st.median(w[1]) / st.median(w[2]):.2f})"
                    f"       {cpu[1]:.3f} -> {cpu[2]:.3f}    {rss[1]:.1f} / {rss[2]:.1f}")
            if ceiling:
                c = 2 * st.median(w[1]) / st.median(shared)
                line += f"    {c:.2f}            {st.median(w[1]) / st.median(w[2]) / c:.3f}"
            print(line, flush=True)


def two_at_once(binary, fmt, shape, work):
    """Two 1-thread conversions started together, each into its own table:
    their (wall s, cpu s, peak RSS MB)."""
    warm(shape_dir(fmt, shape))
    procs = [start(binary, fmt, shape, 1, os.path.join(work, k)) for k in "ab"]
    return [finish(p, t, f"{binary} on {fmt} {shape}") for p, t in procs]


def twice(n, binary, fmt, shape, work):
    alone, shared = [], []
    for _ in range(n):
        alone.append(run(binary, fmt, shape, 1, os.path.join(work, "a")))
        shared += two_at_once(binary, fmt, shape, work)
    print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} load {os.getloadavg()[0]:.2f}; {binary}; {fmt} {shape}; {n} rounds")
    wa, ws = st.median(x[0] for x in alone), st.median(x[0] for x in shared)
    ca, cs = st.median(x[1] for x in alone), st.median(x[1] for x in shared)
    print(f"one 1-thread run alone: wall {wa:.3f} s, cpu {ca:.3f} s; two at once, each: wall {ws:.3f} s, cpu {cs:.3f} s;"
          f" slowdown wall {ws / wa:.2f}, cpu {cs / ca:.2f}; ceiling for two threads 2/s = {2 * wa / ws:.2f}")


def main(argv):
    work = tempfile.mkdtemp(prefix="tributary-pairs.")
    try:
        if len(argv) == 8 and argv[1] == "pairs":
            pairs(int(argv[2]), argv[3], argv[4], int(argv[5]), argv[6], argv[7], work)
        elif len(argv) == 6 and argv[1] == "twice":
            twice(int(argv[2]), argv[3], argv[4], argv[5], work)
        elif len(argv) >= 4 and argv[1] == "ratio":
            ratio(int(argv[2]), argv[3], argv[4:] or ["json", "csv"], work)
        else:
            sys.exit(__doc__)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(work + ".bin", ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv)
