#!/usr/bin/env bash
# Side-by-side NDJSON -> Parquet/Delta: the tributary CLI versus DuckDB
# (read_json_auto -> COPY TO parquet, snappy) and delta-rs (pyarrow's JSON
# reader -> deltalake.write_deltalake), at 1 and 2 threads (GOMAXPROCS for
# tributary = DuckDB's threads = pyarrow's CPU count), on three shapes cut
# from the ~100 MB dataset that `make bench` generates under .cache/bench:
#   big:   the whole dataset as one ~100 MB file
#   mid:   100 files of ~1 MB
#   small: 10,000 files of ~1 KB (the dataset's first ~10 MB)
# Runs are interleaved (every tool, shape and thread count once per round)
# so that load on the shared machine hits all of them alike; each process
# is timed by /usr/bin/time (wall, user+sys CPU, peak RSS). The summary
# gives, per shape/threads/tool, min and median wall seconds, MB/s at the
# min, peak RSS, output size, and the ratio tool/DuckDB of speed (>1: faster
# than DuckDB). Tributary infers column types (inferColumnTypes=true: one
# inference pass, then the conversion); the others infer in their read.
# polars (read_ndjson / read_csv -> write_delta, POLARS_MAX_THREADS
# threads) is tool "polars". The Python tools come from bench/requirements.txt
# (`scripts/pyenv.sh bench`: .cache/bench-venv). Each row also gives CPU
# seconds (user+sys): on a loaded machine compare those.
#
# FORMAT=csv compares CSV instead: the same events flattened to 16 columns
# with a header line per file (BenchmarkCSVToDelta's ~100 MB dataset; every
# shape's files get the header), read with header=true by Tributary
# (cloudFiles.format=csv, inferColumnTypes=true), DuckDB (read_csv_auto)
# and pyarrow's CSV reader -> delta-rs.
#
# Usage: scripts/bench-compare.sh [rounds]   (default 3)
#   FORMAT=json|csv  SHAPES="big mid small"  THREADS="1 2"  TOOLS="tributary duckdb delta-rs polars"
#   TRIBUTARY_BASE=/path/to/older/tributary adds it as tool "trib-base"
#   (before/after comparisons of the CLI on the same rounds).
#   WARM=0 skips the warm-up read: by default every timed run starts after
#   one read of its input, so that each tool finds it in the page cache.
#   (This VM reclaims pages left idle for a few seconds; the first run
#   after a pause then paid for a cold read: counting the lines of the
#   100 MB file took 690 ms cold and 53 ms warm.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds="${1:-3}"
go="${GO:-go}"
shapes="${SHAPES:-big mid small}"
threads_list="${THREADS:-1 2}"
tools="${TOOLS:-tributary duckdb delta-rs polars}"
[ -n "${TRIBUTARY_BASE:-}" ] && tools="trib-base $tools"
cd "$root"

cache="${TRIBUTARY_BENCH_CACHE:-$root/.cache/bench}"
format="${FORMAT:-json}"
case "$format" in
  json) data="$cache/ndjson-v1-20x5242880-seed20240301-json"; ext=json; parent=JSONToDelta; shapedir="$cache/shapes-v1" ;;
  csv) data="$cache/csv-v1-20x5242880-seed20240301-csv"; ext=csv; parent=CSVToDelta; shapedir="$cache/shapes-csv-v1" ;;
  *) echo "FORMAT must be json or csv" >&2; exit 2 ;;
esac
if [ ! -f "$data/_dataset.json" ]; then
  echo "generating the benchmark dataset (once)..." >&2
  # The parent benchmark generates the datasets; '^$' runs no sub-benchmark.
  "$go" test -run '^$' -bench "$parent/^\$" -benchtime 1x ./bench/ >/dev/null
fi
# BENCH_PYBIN=<venv>/bin uses an existing venv holding the tools instead.
pybin="${BENCH_PYBIN:-}"
[ -n "$pybin" ] || pybin=$("$root/scripts/pyenv.sh" bench)

# The shapes, cut once at line boundaries (a CSV piece starts with the header).
if [ ! -f "$shapedir/done" ]; then
  echo "cutting the shapes (once)..." >&2
  rm -rf "$shapedir"
  python3 - "$data" "$shapedir" "$ext" <<'PY'
import glob, os, sys
src, dst, ext = sys.argv[1], sys.argv[2], sys.argv[3]
header = b""
parts = []
for f in sorted(glob.glob(os.path.join(src, "part-*." + ext))):
    b = open(f, "rb").read()
    if ext == "csv":
        i = b.index(b"\n") + 1
        header, b = b[:i], b[i:]
    parts.append(b)
data = b"".join(parts)
def cut(name, size, limit=None):
    d = os.path.join(dst, name); os.makedirs(d)
    buf = data if limit is None else data[: data.index(b"\n", limit) + 1]
    i = n = total = 0
    while i < len(buf):
        j = buf.find(b"\n", i + size - 1)
        j = len(buf) if j < 0 else j + 1
        open(os.path.join(d, "part-%05d.%s" % (n, ext)), "wb").write(header + buf[i:j])
        total += len(header) + j - i
        i, n = j, n + 1
    rows = buf.count(b"\n")
    open(os.path.join(d, "_rows"), "w").write(str(rows))
    open(os.path.join(d, "_bytes"), "w").write(str(total))
cut("big", len(data))
cut("mid", 1 << 20)
cut("small", 1 << 10, 10 << 20)
PY
  touch "$shapedir/done"
fi

fmtopts=""
[ "$format" = csv ] && fmtopts="--option header=true"

work=$(mktemp -d "${TMPDIR:-/tmp}/tributary-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The binary under test goes to this run's work directory, so that runs from
# several checkouts sharing one TRIBUTARY_BENCH_CACHE never swap binaries.
bin="$work/tributary"
"$go" build -o "$bin" ./cmd/tributary

cat > "$work/deltars.py" <<'PY'
"""Writes the NDJSON (or CSV) files of a directory to a new Delta table with delta-rs."""
import glob, os, sys
import pyarrow as pa
import pyarrow.csv as pc
import pyarrow.json as pj
from deltalake import write_deltalake

src, table, threads, ext = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
pa.set_cpu_count(threads)
pa.set_io_thread_count(threads)
files = sorted(glob.glob(os.path.join(src, "part-*." + ext)))
read = pc.read_csv if ext == "csv" else pj.read_json
tables = [read(f) for f in files]
data = pa.concat_tables(tables, promote_options="permissive")
write_deltalake(table, data, mode="error")
print(f"rows={data.num_rows}")
PY
cat > "$work/polars_delta.py" <<'PY'
"""Writes the NDJSON (or CSV) files of a directory to a new Delta table with polars."""
import os, sys
src, table, threads, ext = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
os.environ["POLARS_MAX_THREADS"] = threads  # before the import
import polars as pl

pattern = os.path.join(src, "part-*." + ext)
data = pl.read_csv(pattern) if ext == "csv" else pl.read_ndjson(pattern)
data.write_delta(table, mode="error")
print(f"rows={data.height}")
PY
cat > "$work/duck.py" <<'PY'
"""Converts the NDJSON (or CSV) files of a directory to one Parquet file with DuckDB."""
import os, sys
import duckdb

src, out, threads, ext = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
os.makedirs(out)
con = duckdb.connect()
con.execute(f"SET threads={threads}")
read = f"read_csv_auto('{src}/part-*.csv', header=true)" if ext == "csv" else f"read_json_auto('{src}/part-*.json')"
con.execute(f"COPY (SELECT * FROM {read}) TO '{out}/out.parquet' (FORMAT parquet, COMPRESSION snappy)")
n = con.execute(f"SELECT count(*) FROM read_parquet('{out}/out.parquet')").fetchone()[0]
print(f"rows={n}")
PY

results="$work/results.tsv"
# failed SHAPE THREADS TOOL: another tool's failure is reported, not fatal
# (pyarrow's JSON reader cannot read the single 100 MB file: it infers a
# list of timestamps from its first block and fails later in the file).
failed() {
  echo "$3 failed on $1 at $2 threads: $(grep -v '^ ' "$work/run.log" | tail -1)" >&2
  echo "$3 on $1: failed" >> "$work/failures.txt"
}
# measure SHAPE THREADS TOOL: one timed run, appended to results.
measure() {
  local shape=$1 th=$2 tool=$3 src="$shapedir/$1"
  local tf="$work/time.txt" log="$work/run.log" out="$work/out"
  rm -rf "$out" "$work/checkpoint"
  [ "${WARM:-1}" = 0 ] || find "$src" -type f -name "*.$ext" -exec cat {} + >/dev/null
  case "$tool" in
    tributary|trib-base)
      local b="$bin"; [ "$tool" = trib-base ] && b="$TRIBUTARY_BASE"
      GOMAXPROCS=$th /usr/bin/time -f '%e %U %S %M' -o "$tf" "$b" run --source "$src" --table "$out" \
        --checkpoint "$work/checkpoint" --option cloudFiles.format=$format $fmtopts --option cloudFiles.inferColumnTypes=true \
        --option cloudFiles.maxFilesPerTrigger=100000 >"$log" 2>&1 || { cat "$log" >&2; exit 1; } ;;
    duckdb)
      /usr/bin/time -f '%e %U %S %M' -o "$tf" "$pybin/python" "$work/duck.py" "$src" "$out" "$th" "$ext" >"$log" 2>&1 || { failed "$@"; return; } ;;
    delta-rs)
      /usr/bin/time -f '%e %U %S %M' -o "$tf" "$pybin/python" "$work/deltars.py" "$src" "$out" "$th" "$ext" >"$log" 2>&1 || { failed "$@"; return; } ;;
    polars)
      /usr/bin/time -f '%e %U %S %M' -o "$tf" "$pybin/python" "$work/polars_delta.py" "$src" "$out" "$th" "$ext" >"$log" 2>&1 || { failed "$@"; return; } ;;
  esac
  local want got
  want=$(cat "$src/_rows")
  got=$(grep -Eo '(ingested |rows=)[0-9]+' "$log" | grep -Eo '[0-9]+$' | awk '{s+=$1} END {print s+0}')
  if [ "$got" != "$want" ]; then
    echo "$tool on $shape wrote ${got:-?} rows, want $want" >&2; cat "$log" >&2; exit 1
  fi
  local size
  size=$(find "$out" -name '*.parquet' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
  read -r wall user sys rss < "$tf"
  echo -e "$shape\t$th\t$tool\t$wall\t$user\t$sys\t$rss\t$size\t$(cat "$src/_bytes")" >> "$results"
}

for r in $(seq "$rounds"); do
  for shape in $shapes; do
    for th in $threads_list; do
      for tool in $tools; do
        measure "$shape" "$th" "$tool"
      done
    done
  done
  echo "round $r/$rounds done" >&2
done

[ -f "$work/failures.txt" ] && sort "$work/failures.txt" | uniq -c
echo "# $format; $(date -u +%FT%TZ); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds; tributary $(git -C "$root" rev-parse --short HEAD)"
python3 - "$results" <<'PY'
import sys, statistics, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    shape, th, tool, wall, user, sys_, rss, size, nbytes = line.rstrip("\n").split("\t")
    rows[(shape, int(th), tool)].append((float(wall), float(user) + float(sys_), int(rss), int(size), int(nbytes)))
print(f"{'shape':6} {'thr':>3} {'tool':10} {'min s':>7} {'med s':>7} {'MB/s':>7} {'cpu s':>7} {'RSS MB':>7} {'out MB':>7} {'x duckdb':>8} {'cpu x duck':>10}")
for (shape, th, tool), v in sorted(rows.items()):
    walls = sorted(w for w, *_ in v)
    best = walls[0]
    nbytes = v[0][4]
    duck = rows.get((shape, th, "duckdb"))
    ratio = (min(w for w, *_ in duck) / best) if duck else float("nan")
    cpu = min(c for _, c, *_ in v)
    cratio = (min(c for _, c, *_ in duck) / cpu) if duck else float("nan")
    print(f"{shape:6} {th:>3} {tool:10} {best:7.2f} {statistics.median(walls):7.2f} {nbytes/1e6/best:7.1f} "
          f"{cpu:7.2f} {max(x[2] for x in v)/1024:7.1f} "
          f"{v[0][3]/1e6:7.1f} {ratio:8.2f} {cratio:10.2f}")
PY
