#!/usr/bin/env bash
# Side-by-side NDJSON -> Delta: the tributary CLI versus delta-rs
# (Python deltalake.write_deltalake fed by pyarrow's JSON reader), on the
# same ~100 MB dataset that `make bench` generates under .cache/bench.
# Each tool writes a fresh Delta table per run, in a separate process timed
# the same way (/usr/bin/time: wall, user+sys CPU, peak RSS). MB/s counts
# the uncompressed NDJSON bytes. Tributary infers column types
# (cloudFiles.inferColumnTypes=true, which reads the input twice: infer,
# then convert); pyarrow infers types in its single read.
# Usage: scripts/bench-compare.sh [runs]   (default 1 run per tool)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs="${1:-1}"
go="${GO:-go}"
cd "$root"

data="${TRIBUTARY_BENCH_CACHE:-$root/.cache/bench}/ndjson-v1-20x5242880-seed20240301-json"
if [ ! -f "$data/_dataset.json" ]; then
  echo "generating the benchmark dataset (once)..." >&2
  # The parent benchmark generates the datasets; '^$' runs no sub-benchmark.
  "$go" test -run '^$' -bench 'JSONToDelta/^$' -benchtime 1x ./bench/ >/dev/null
fi
rawbytes=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["RawBytes"])' "$data/_dataset.json")
rows=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["Rows"])' "$data/_dataset.json")

bin="$root/.cache/bench/tributary"
"$go" build -o "$bin" ./cmd/tributary
pybin=$("$root/scripts/pyenv.sh")

work=$(mktemp -d "${TMPDIR:-/tmp}/tributary-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT

cat > "$work/deltars.py" <<'PY'
"""Writes the NDJSON files of a directory to a new Delta table with delta-rs."""
import glob, os, sys
import pyarrow as pa
import pyarrow.json as pj
from deltalake import write_deltalake

src, table = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(os.path.join(src, "part-*.json")))
tables = [pj.read_json(f) for f in files]
data = pa.concat_tables(tables, promote_options="permissive")
write_deltalake(table, data, mode="error")
print(f"rows={data.num_rows}")
PY

# measure NAME CMD...: runs CMD under /usr/bin/time and appends a result row.
results="$work/results.tsv"
measure() {
  local name=$1; shift
  local tf="$work/time.txt" log="$work/$name.log"
  /usr/bin/time -f '%e %U %S %M' -o "$tf" "$@" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
  local got
  got=$(grep -Eo '(ingested |rows=)[0-9]+' "$log" | grep -Eo '[0-9]+$' | head -1)
  if [ "$got" != "$rows" ]; then
    echo "$name wrote ${got:-?} rows, want $rows" >&2; cat "$log" >&2; exit 1
  fi
  local out
  out=$(find "$work/table" -name '*.parquet' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
  read -r wall user sys rss < "$tf"
  echo -e "$name\t$wall\t$user\t$sys\t$rss\t$out" >> "$results"
}

for i in $(seq "$runs"); do
  rm -rf "$work/table" "$work/checkpoint"
  measure tributary "$bin" run --quiet --source "$data" --table "$work/table" --checkpoint "$work/checkpoint" \
    --option cloudFiles.format=json --option cloudFiles.inferColumnTypes=true
  rm -rf "$work/table"
  measure delta-rs "$pybin/python" "$work/deltars.py" "$data" "$work/table"
done

echo "input: $(basename "$data"): $rows rows, $(awk -v b="$rawbytes" 'BEGIN {printf "%.1f", b/1e6}') MB NDJSON; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -F'\t' -v bytes="$rawbytes" '
BEGIN { printf "%-10s %8s %8s %8s %10s %12s %12s\n", "tool", "wall s", "cpu s", "MB/s", "MB/cpu-s", "peak RSS MB", "parquet MB" }
{ cpu = $3 + $4
  printf "%-10s %8.2f %8.2f %8.1f %10.1f %12.1f %12.1f\n", $1, $2, cpu, bytes/1e6/$2, bytes/1e6/cpu, $5/1024, $6/1e6 }' "$results"
