#!/usr/bin/env bash
# Runs the project's benchmarks and writes their output to one file
# (default out/bench.txt), echoing it as it goes:
#   1. ./bench: end-to-end NDJSON -> Delta through the CLI's local adapters
#      (~100 MB dataset, generated once under .cache/bench) and discovery
#      into boltstate, one iteration each (-benchtime 1x);
#   2. ./core/...: the micro-benchmarks (JSON reader, Parquet writer, Delta
#      log) with Go's default benchtime.
# The header records the machine and its load: on a shared 2-core machine
# wall-clock MB/s moves with the load; MB/cpu-s (CPU time) is steadier.
# Usage: scripts/bench-run.sh [output]   (GO=go, BENCH_FILTER=. to narrow)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="${1:-$root/out/bench.txt}"
go="${GO:-go}"
filter="${BENCH_FILTER:-.}"
mkdir -p "$(dirname "$out")"
cd "$root"
{
  echo "# tributary benchmarks $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# $("$go" version); $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')"
  echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
  "$go" test -run '^$' -bench "$filter" -benchmem -benchtime 1x -timeout 20m ./bench/
  "$go" test -run '^$' -bench "$filter" -benchmem -timeout 20m ./core/...
  echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
} 2>&1 | tee "$out"
