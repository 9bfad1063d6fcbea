"""Compares Parquet input files with the Delta table Tributary made of them.

Usage: parquet_input.py ENGINE IVY TABLE=INPUT.parquet...

An input file named *.orc is read as ORC (pyarrow.orc, spark.read.orc); its
dates before 1582-10-15 are rebased from the Julian calendar as Spark's ORC
reader does (pyarrow does not).

Each argument after IVY pairs a table with the input file it was made of
(all pairs are checked in one process, so Spark starts once).

ENGINE "deltalake": the input files are read with pyarrow, the table with
delta-rs (deltalake); both sides become canonical text per row (UTC
timestamps, exact decimals, NaN spelled out, maps as sorted pairs) and the
two multisets of rows must be equal. ENGINE "spark": Spark reads both the
input files (spark.read.parquet, its own INT96 and legacy-list handling) and
the table (delta-spark), renders each row with to_json, and the multisets
must be equal. The table's _rescued_data column must be null everywhere.
Prints a one-line summary; exits 1 with the differences otherwise.
"""

import datetime as dt
import decimal
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402 (tests/pylib)


def canon(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, decimal.Decimal):
        return "d:" + format(v.normalize(), "f") if v != 0 else "d:0"
    if isinstance(v, dt.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return "t:" + v.isoformat()
    if isinstance(v, dt.date):
        return "D:" + v.isoformat()
    if isinstance(v, bytes):
        return "b:" + v.hex()
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}={canon(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        if v and all(isinstance(e, tuple) and len(e) == 2 for e in v):  # pyarrow map
            return "map{" + ",".join(sorted(f"{canon(k)}:{canon(x)}" for k, x in v)) + "}"
        return "[" + ",".join(canon(e) for e in v) + "]"
    raise TypeError(f"unexpected {type(v)}: {v!r}")


def canon_row(row, names, maps):
    parts = []
    for n in names:
        v = row[n]
        if n in maps and isinstance(v, dict):
            v = list(v.items())
        parts.append(f"{n}={canon(v)}")
    return " ".join(parts)


def rebase_dates(t, fn):
    import pyarrow as pa
    for i, fld in enumerate(t.schema):
        if pa.types.is_date32(fld.type):
            col = pa.array([None if v is None else fn(v) for v in t.column(i).to_pylist()], pa.date32())
            t = t.set_column(i, fld.name, col)
    return t


def compare(want, got):
    w, g = sorted(want), sorted(got)
    if w == g:
        return []
    import collections
    cw, cg = collections.Counter(w), collections.Counter(g)
    return [f"missing: {r}" for r in (cw - cg).elements()] + [f"extra:   {r}" for r in (cg - cw).elements()]


def deltalake_side(table, inputs):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from deltalake import DeltaTable

    want, names = [], None
    for f in inputs:
        if f.endswith(".orc"):
            import pyarrow.orc as orc
            t = orc.read_table(f)
            sys.path.insert(0, os.path.join(os.path.dirname(f)))
            from gen import spark_date
            t = rebase_dates(t, spark_date)
        else:
            t = pq.read_table(f)
        names = t.schema.names
        maps = {fld.name for fld in t.schema if pa.types.is_map(fld.type)}
        want += [canon_row(r, names, maps) for r in t.to_pylist()]
    out = DeltaTable(table).to_pyarrow_table()
    rescued = [r for r in out.column("_rescued_data").to_pylist() if r is not None]
    if rescued:
        return [f"rescued values: {rescued[:3]}"], 0
    maps = {fld.name for fld in out.schema if pa.types.is_map(fld.type)}
    got = [canon_row(r, names, maps) for r in out.to_pylist()]
    return compare(want, got), len(got)


def spark_side(ivy, pairs):
    from pyspark.sql import functions as F

    spark = harness.spark_session("tributary-parquet-input", ivy, {"spark.sql.codegen.wholeStage": "false"})
    try:
        diffs, n = [], 0
        for table, inp in pairs:
            src = spark.read.orc(inp) if inp.endswith(".orc") else spark.read.parquet(inp)
            cols = src.columns
            want = [r[0] for r in src.select(F.to_json(F.struct(*cols))).collect()]
            out = spark.read.format("delta").load(table)
            if out.where(F.col("_rescued_data").isNotNull()).count():
                diffs.append(f"{table}: rescued values in the table")
            got = [r[0] for r in out.select(F.to_json(F.struct(*cols))).collect()]
            diffs += [f"{inp}: {d}" for d in compare(want, got)]
            n += len(got)
        return diffs, n
    finally:
        spark.stop()


def main():
    engine, ivy = sys.argv[1], sys.argv[2]
    pairs = [a.split("=", 1) for a in sys.argv[3:]]
    if engine == "deltalake":
        diffs, n = [], 0
        for table, inp in pairs:
            d, k = deltalake_side(table, [inp])
            diffs += [f"{inp}: {x}" for x in d]
            n += k
    elif engine == "spark":
        diffs, n = spark_side(ivy, pairs)
    else:
        sys.exit(f"unknown engine {engine}")
    if diffs:
        print(f"{engine}: {len(diffs)} differences", *diffs[:40], sep="\n")
        sys.exit(1)
    print(f"{engine}: {n} rows equal")


if __name__ == "__main__":
    harness.run(main)  # no interpreter finalisation (deltalake)
