#!/usr/bin/env bash
# Opens the same Delta tables with Tributary and with delta-rs, interleaved:
# (CPU time per open is reported besides wall time: on a shared, loaded
# machine wall time mostly measures the wait for a core)
# 10,000 live files written by 10 commits of 1,000 files, and by 10,000
# one-file streaming commits (a checkpoint every 10). Tributary's time is
# BenchmarkOpenTable's (snapshot with every add in memory); delta-rs's is
# DeltaTable(path) plus listing its file URIs (its eager snapshot), best of
# ROUNDS runs in one Python process. Tables are generated once under
# .cache/bench by the Go benchmark.
# Usage: scripts/bench-open.sh [rounds]   (GO=go; TRIBUTARY_VENV for deltalake)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
go="${GO:-go}"
rounds="${1:-3}"
cd "$root"
py="$(bash scripts/pyenv.sh)/python"
echo "# bench-open $(date -u +%Y-%m-%dT%H:%M:%SZ); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
  echo "## round $r"
  "$go" test -run '^$' -bench 'BenchmarkOpenTable' -benchmem -benchtime 5x -timeout 60m ./bench/ | grep '^BenchmarkOpenTable' |
    awk '{for (i = 1; i < NF; i++) { if ($(i+1) == "ns/op") w = $i; if ($(i+1) == "B/op") m = $i; if ($(i+1) == "cpu-ms/op") c = $i }
           printf "tributary %-42s %8.1f ms/open %8.1f cpu-ms/open %6.1f MB allocated/open\n", $1, w/1e6, c, m/1e6}'
  "$py" - "$root/.cache/bench" <<'EOF'
import os, sys, time, resource
from deltalake import DeltaTable
base = sys.argv[1]
for name, shape in (("open-10x1000", "commits=10/files=10000"), ("open-10000x1", "commits=10000/files=10000")):
    path = os.path.join(base, name)
    walls, cpus = [], []
    for _ in range(5):
        t0, c0 = time.perf_counter(), time.process_time()
        dt = DeltaTable(path)
        n = len(dt.file_uris())
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        assert n == 10000, n
    print(f"delta-rs  {shape:<42} {sum(walls)/5*1000:8.1f} ms/open {sum(cpus)/5*1000:8.1f} cpu-ms/open (mean of 5)")
print(f"delta-rs  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024:.0f} MB")
EOF
done
