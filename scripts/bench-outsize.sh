#!/usr/bin/env bash
# Output size side by side: the Parquet files the tributary CLI writes into a
# new Delta table versus DuckDB's COPY TO parquet (snappy, its defaults) for
# the same input, column by column. Inputs are the benchmark datasets that
# `make bench` generates under .cache/bench (~100 MB each, 20 files):
#   json: the NDJSON events (Tributary: cloudFiles.inferColumnTypes=true;
#         DuckDB: read_json_auto)
#   csv:  the same events flattened to 16 columns, a header per file
#         (header=true, inferColumnTypes=true; DuckDB: read_csv_auto)
# Both tools run at 2 threads. Sizes are read from the Parquet footers
# (pyarrow): per top-level column the compressed bytes of its column chunks
# (nested leaves summed), the physical/logical type of its first leaf and
# the encodings used, then files, row groups, total bytes (footers
# included) and the ratio Tributary/DuckDB (below 1: Tributary's smaller).
# The two tools infer different types for some columns (DuckDB detects
# timestamps in strings; Spark's JSON inference, which Tributary follows,
# does not by default), so a per-column difference can be a type difference;
# the table shows both types. Nested columns are followed by their leaves
# (indented).
#
# Usage: scripts/bench-outsize.sh   (FORMATS="json csv", THREADS=2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
go="${GO:-go}"
formats="${FORMATS:-json csv}"
threads="${THREADS:-2}"
cd "$root"
cache="${TRIBUTARY_BENCH_CACHE:-$root/.cache/bench}"
pybin=$("$root/scripts/pyenv.sh" bench)
bin="$cache/tributary"
"$go" build -o "$bin" ./cmd/tributary
work=$(mktemp -d "${TMPDIR:-/tmp}/tributary-outsize.XXXXXX")
trap 'rm -rf "$work"' EXIT

cat > "$work/duck.py" <<'PY'
import os, sys
import duckdb
src, out, threads, ext = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
os.makedirs(out)
con = duckdb.connect()
con.execute(f"SET threads={threads}")
read = f"read_csv_auto('{src}/part-*.csv', header=true)" if ext == "csv" else f"read_json_auto('{src}/part-*.json')"
con.execute(f"COPY (SELECT * FROM {read}) TO '{out}/out.parquet' (FORMAT parquet, COMPRESSION snappy)")
PY

cat > "$work/sizes.py" <<'PY'
"""Per-column compressed sizes of two sets of Parquet files, side by side."""
import collections, glob, os, sys
import pyarrow.parquet as pq

def scan(d):
    files = sorted(glob.glob(os.path.join(d, "**", "*.parquet"), recursive=True))
    cols = collections.OrderedDict()
    total = rows = groups = 0
    for f in files:
        total += os.path.getsize(f)
        md = pq.ParquetFile(f).metadata
        rows += md.num_rows
        groups += md.num_row_groups
        schema = md.schema
        for g in range(md.num_row_groups):
            rg = md.row_group(g)
            for c in range(rg.num_columns):
                cc = rg.column(c)
                path = cc.path_in_schema
                keys = [path.split(".")[0]]
                leaf = ".".join(p for p in path.split(".") if p not in ("list", "element", "key_value", "array"))
                if leaf != keys[0]:  # a struct's leaf: its own row too, after its column's
                    keys.append("  " + leaf)
                for i, key in enumerate(keys):
                    e = cols.setdefault(key, {"bytes": 0, "raw": 0, "enc": set(), "type": None, "codec": set()})
                    e["bytes"] += cc.total_compressed_size
                    e["raw"] += cc.total_uncompressed_size
                    e["enc"].update(x for x in cc.encodings if x not in ("RLE", "BIT_PACKED"))
                    e["codec"].add(cc.compression)
                    if e["type"] is None:
                        col = schema.column(c)
                        lt = str(col.logical_type)
                        e["type"] = col.physical_type + ("" if lt in ("None", "") else "/" + lt.split("(")[0])
                        if i == 0 and len(keys) > 1:
                            e["type"] = "nested:" + e["type"]
    return files, cols, total, rows, groups

label, trib_dir, duck_dir = sys.argv[1], sys.argv[2], sys.argv[3]
tf, tc, tt, tr, tg = scan(trib_dir)
df, dc, dt, dr, dg = scan(duck_dir)
if tr != dr:
    sys.exit(f"{label}: row counts differ: tributary {tr}, duckdb {dr}")
short = lambda s: ",".join(sorted(x.replace("PLAIN_DICTIONARY", "DICT").replace("RLE_DICTIONARY", "DICT")
                                  .replace("DELTA_BINARY_PACKED", "DELTA").replace("DELTA_LENGTH_BYTE_ARRAY", "DLBA") for x in s))
print(f"## {label}: {tr} rows; tributary {len(tf)} files, {tg} row groups, {tt/1e6:.2f} MB; "
      f"duckdb {len(df)} files, {dg} row groups, {dt/1e6:.2f} MB; ratio tributary/duckdb {tt/dt:.3f}")
print(f"{'column':22} {'trib KB':>9} {'duck KB':>9} {'ratio':>6}  {'trib type / encodings':38} {'duck type / encodings'}")
keys = list(tc) + [k for k in dc if k not in tc]
for k in keys:
    a, b = tc.get(k), dc.get(k)
    ab = a["bytes"] if a else 0
    bb = b["bytes"] if b else 0
    ratio = f"{ab/bb:6.2f}" if a and b and bb else "     -"
    at = f"{a['type']} {short(a['enc'])}" if a else "-"
    bt = f"{b['type']} {short(b['enc'])}" if b else "-"
    print(f"{k[:22]:22} {ab/1e3:9.1f} {bb/1e3:9.1f} {ratio}  {at[:38]:38} {bt}")
codecs = lambda c: ",".join(sorted({x for e in c.values() for x in e["codec"]}))
print(f"{'(codecs)':22} {codecs(tc):>9} {codecs(dc):>9}")
tops = lambda c: sum(e["bytes"] for k, e in c.items() if not k.startswith(" "))
print(f"{'(column chunks total)':22} {tops(tc)/1e3:9.1f} {tops(dc)/1e3:9.1f}")
PY

echo "# output size; $(date -u +%FT%TZ); tributary $(git rev-parse --short HEAD); $threads threads; load $(cut -d' ' -f1-3 /proc/loadavg)"
for format in $formats; do
  case "$format" in
    json) data="$cache/ndjson-v1-20x5242880-seed20240301-json"; parent=JSONToDelta; opts="" ;;
    csv) data="$cache/csv-v1-20x5242880-seed20240301-csv"; parent=CSVToDelta; opts="--option header=true" ;;
    *) echo "FORMATS: json or csv, not $format" >&2; exit 2 ;;
  esac
  if [ ! -f "$data/_dataset.json" ]; then
    echo "generating the $format benchmark dataset (once)..." >&2
    "$go" test -run '^$' -bench "$parent/^\$" -benchtime 1x ./bench/ >/dev/null
  fi
  rm -rf "$work/trib" "$work/ckpt" "$work/duck"
  # shellcheck disable=SC2086
  GOMAXPROCS=$threads "$bin" run --source "$data" --table "$work/trib" --checkpoint "$work/ckpt" \
    --option cloudFiles.format=$format $opts --option cloudFiles.inferColumnTypes=true \
    --option cloudFiles.maxFilesPerTrigger=100000 > "$work/trib.log" 2>&1 || { cat "$work/trib.log" >&2; exit 1; }
  "$pybin/python" "$work/duck.py" "$data" "$work/duck" "$threads" "$format"
  "$pybin/python" "$work/sizes.py" "$format ($(du -sb --exclude=_dataset.json "$data" | cut -f1 | awk '{printf "%.1f", $1/1e6}') MB input)" "$work/trib" "$work/duck"
done
