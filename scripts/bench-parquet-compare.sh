#!/usr/bin/env bash
# Side-by-side Parquet -> Parquet/Delta: the tributary CLI
# (cloudFiles.format=parquet into a new Delta table) versus DuckDB
# (read_parquet -> COPY TO parquet, snappy), at 1 and 2 threads (GOMAXPROCS
# for tributary = DuckDB's threads), on the Parquet dataset that
# BenchmarkParquetToDelta converts once under .cache/bench (the ~100 MB
# NDJSON dataset as 20 snappy Parquet files, ~25 MB). Runs are interleaved
# (every tool and thread count once per round) so that load on the shared
# machine hits them alike; each process is timed by /usr/bin/time. The
# summary gives, per threads/tool, min and median wall seconds, input MB/s
# at the min wall, MB per CPU-second at the min CPU time (steadier on a
# loaded machine), peak RSS and output size.
#
# Usage: scripts/bench-parquet-compare.sh [rounds]   (default 3; THREADS="1 2")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds="${1:-3}"
go="${GO:-go}"
threads_list="${THREADS:-1 2}"
cd "$root"
cache="${TRIBUTARY_BENCH_CACHE:-$root/.cache/bench}"
data="$cache/parquet-v1-ndjson-v1-20x5242880-seed20240301-json"
if [ ! -f "$data/_dataset.json" ]; then
  echo "converting the benchmark dataset to Parquet (once)..." >&2
  "$go" test -run '^$' -bench 'ParquetToDelta/^$' -benchtime 1x ./bench/ >/dev/null
fi
pybin=$("$root/scripts/pyenv.sh")
bin="$cache/tributary"
"$go" build -o "$bin" ./cmd/tributary
work=$(mktemp -d "${TMPDIR:-/tmp}/tributary-pqcompare.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat > "$work/duck.py" <<'PY'
import os, sys
import duckdb
src, out, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(out)
con = duckdb.connect()
con.execute(f"SET threads={threads}")
con.execute(f"COPY (SELECT * FROM read_parquet('{src}/part-*.parquet')) TO '{out}/out.parquet' (FORMAT parquet, COMPRESSION snappy)")
print("rows=%d" % con.execute(f"SELECT count(*) FROM read_parquet('{out}/out.parquet')").fetchone()[0])
PY
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['Rows'])" "$data/_dataset.json")
bytes=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['RawBytes'])" "$data/_dataset.json")
results="$work/results.tsv"
measure() {
  local th=$1 tool=$2 tf="$work/time.txt" log="$work/run.log" out="$work/out"
  rm -rf "$out" "$work/checkpoint"
  case "$tool" in
    tributary)
      GOMAXPROCS=$th /usr/bin/time -f '%e %U %S %M' -o "$tf" "$bin" run --source "$data" --table "$out" \
        --checkpoint "$work/checkpoint" --option cloudFiles.format=parquet \
        --option cloudFiles.maxFilesPerTrigger=100000 >"$log" 2>&1 || { cat "$log" >&2; exit 1; } ;;
    duckdb)
      /usr/bin/time -f '%e %U %S %M' -o "$tf" "$pybin/python" "$work/duck.py" "$data" "$out" "$th" >"$log" 2>&1 || { cat "$log" >&2; exit 1; } ;;
  esac
  local got
  got=$(grep -Eo '(ingested |rows=)[0-9]+' "$log" | grep -Eo '[0-9]+$' | awk '{s+=$1} END {print s+0}')
  [ "$got" = "$want" ] || { echo "$tool wrote ${got:-?} rows, want $want" >&2; cat "$log" >&2; exit 1; }
  local size
  size=$(find "$out" -name '*.parquet' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
  read -r wall user sys rss < "$tf"
  echo -e "$th\t$tool\t$wall\t$user\t$sys\t$rss\t$size" >> "$results"
}
for r in $(seq "$rounds"); do
  for th in $threads_list; do
    for tool in tributary duckdb; do measure "$th" "$tool"; done
  done
  echo "round $r done" >&2
done
echo "# Parquet input: $(python3 -c "print('%.1f' % ($bytes/1e6))") MB in 20 files, $want rows; $rounds rounds; load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" "$bytes" <<'PY'
import sys, statistics, collections
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
mb = int(sys.argv[2]) / 1e6
g = collections.defaultdict(list)
for th, tool, wall, user, sys_, rss, size in rows:
    g[(int(th), tool)].append((float(wall), float(user) + float(sys_), int(rss), int(size)))
print("threads tool       min-wall-s median-wall-s  MB/s(min wall)  MB/cpu-s  peak-RSS-MB  out-MB")
for (th, tool), v in sorted(g.items()):
    walls = [x[0] for x in v]; cpus = [x[1] for x in v]
    print(f"{th:7d} {tool:10s} {min(walls):10.2f} {statistics.median(walls):13.2f} {mb/min(walls):15.1f} {mb/min(cpus):9.1f} {max(x[2] for x in v)/1024:12.0f} {v[0][3]/1e6:7.1f}")
PY
