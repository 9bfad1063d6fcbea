"""Reads Delta tables with an independent engine and reports what it sees as JSON.

Usage: read_delta.py ENGINE SPEC_JSON OUT_JSON

ENGINE is "deltalake" (delta-rs), "duckdb" (DuckDB's delta extension, which
is delta-kernel-rs) or "spark" (PySpark + delta-spark). SPEC_JSON
lists the tables to read:

    {"tables": [{"path": "/abs/table", "key": "id",
                 "probes": [{"column": "name", "value": "Ann"}]}],
     "ivy": "/abs/ivy/cache"}

For every table OUT_JSON gets: the version, the schema (column name and Delta
type string), every row (decimals as strings), the history (version,
operation, operationParameters), the streaming txn versions of the appIds
seen in the history, the partition columns (from the metadata; not by
DuckDB), and for each probe the key values of the rows that the
engine returns for `column = value` (exercising its file skipping on the
table's stats and, on partition columns, its partition pruning). DuckDB
reports no version, history or txn. deltalake also reports every data file
with its add-action path (URI-decoded: add.path is a URI), partition values
and stats, and the key values read from the file itself with pyarrow.parquet.

SPEC_JSON may also list "digests": [{"path", "key", "column"}]: tables whose
column holds huge values (64 MB strings). Their rows are not reported;
instead OUT_JSON's "digests" gets, per reader, each row's key with the
value's length in bytes and SHA-256, computed inside the engine (SQL) —
and, for deltalake, also from the data files read with pyarrow.parquet.

All tables are read in one process, so Spark starts once.
"""

import base64
import decimal
import hashlib
import json
import math
import os
import tempfile
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402 (tests/pylib)


def delta_type(t):
    """Renders a Delta/Spark JSON schema type as Delta's simple string."""
    if isinstance(t, str):
        return t
    kind = t["type"]
    if kind == "struct":
        return "struct<" + ",".join(f["name"] + ":" + delta_type(f["type"]) for f in t["fields"]) + ">"
    if kind == "array":
        return "array<" + delta_type(t["elementType"]) + ">"
    if kind == "map":
        return "map<" + delta_type(t["keyType"]) + "," + delta_type(t["valueType"]) + ">"
    raise ValueError(f"unknown schema type {t!r}")


def schema_columns(schema_json):
    return [{"name": f["name"], "type": delta_type(f["type"]), "nullable": f.get("nullable", True)}
            for f in schema_json["fields"]]


def type_changes(schema_json):
    """The delta.typeChanges metadata of each top-level column that has it."""
    return {f["name"]: f["metadata"]["delta.typeChanges"] for f in schema_json["fields"]
            if "delta.typeChanges" in (f.get("metadata") or {})}


def plain(v):
    """Converts an engine value to plain JSON (decimals as strings)."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return {"float": repr(v)}
        return v
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (bytes, bytearray)):
        return {"binary": base64.b64encode(bytes(v)).decode()}
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "asDict"):
        return plain(v.asDict(recursive=True))
    if hasattr(v, "isoformat"):
        return v.isoformat()
    raise TypeError(f"cannot render {type(v).__name__} {v!r}")


def sql_literal(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    raise TypeError(f"no SQL literal for {v!r}")


def app_ids(history):
    ids = set()
    for h in history:
        q = (h.get("operationParameters") or {}).get("queryId")
        if q:
            ids.add(q)
    return sorted(ids)


def read_deltalake(spec):
    import deltalake
    import pyarrow as pa
    import pyarrow.parquet as pq
    from deltalake import DeltaTable, QueryBuilder

    out = {"engine": "deltalake " + deltalake.__version__, "tables": []}
    for t in spec["tables"]:
        dt = DeltaTable(t["path"])
        proto = dt.protocol()
        schema_json = json.loads(dt.schema().to_json())
        meta = {
            "path": t["path"],
            "version": dt.version(),
            "protocol": {"minReaderVersion": proto.min_reader_version,
                         "minWriterVersion": proto.min_writer_version},
            "tableFeatures": sorted(set((proto.reader_features or []) + (proto.writer_features or []))),
            "properties": dict(dt.metadata().configuration),
            "typeChanges": type_changes(schema_json),
            "schema": schema_columns(schema_json),
            "partitionColumns": list(dt.metadata().partition_columns),
        }
        try:
            rows = dt.to_pyarrow_table().to_pylist()
        except deltalake.exceptions.DeltaProtocolError as e:
            # delta-rs refuses to read the data of tables with reader
            # features it lacks (typeWidening): report what it said.
            if "typeWidening" not in str(e):
                raise
            out["tables"].append(dict(meta, error=str(e)))
            continue
        history = [{"version": h.get("version"), "operation": h.get("operation"),
                    "operationParameters": h.get("operationParameters") or {}} for h in dt.history()]
        adds = pa.table(dt.get_add_actions(flatten=True)).to_pylist()
        files = []
        for a in adds:
            rel = urllib.parse.unquote(a["path"])
            keys = pq.read_table(os.path.join(t["path"], rel), columns=[t["key"]]).column(0).to_pylist()
            stats = {k: plain(v) for k, v in a.items()
                     if k == "num_records" or k.startswith(("min.", "max.", "null_count."))}
            parts = {k[len("partition."):]: plain(v) for k, v in a.items() if k.startswith("partition.")}
            files.append({"path": rel, "keys": plain(keys), "partitionValues": parts, "stats": stats})
        probes = []
        for p in t.get("probes", []):
            qb = QueryBuilder().register("t", dt)
            sql = f'SELECT "{t["key"]}" FROM t WHERE "{p["column"]}" = {sql_literal(p["value"])}'
            res = qb.execute(sql).read_all()
            probes.append({"column": p["column"], "value": p["value"],
                           "keys": plain(pa.table(res).column(0).to_pylist())})
        out["tables"].append(dict(meta, **{
            "rows": plain(rows),
            "history": history,
            "txn": {a: dt.transaction_version(a) for a in app_ids(history)},
            "files": files,
            "probes": probes,
        }))
    out["digests"] = []
    for d in spec.get("digests") or []:
        dt = DeltaTable(d["path"])
        key, col = d["key"], d["column"]
        sql = f'SELECT "{key}" AS k, octet_length("{col}") AS n, sha256("{col}") AS h FROM t'
        res = pa.table(QueryBuilder().register("t", dt).execute(sql).read_all()).to_pylist()
        out["digests"].append({"path": d["path"], "reader": "deltalake (DataFusion SQL)",
                               "rows": [{"key": r["k"], "bytes": r["n"], "sha256": bytes(r["h"]).hex()} for r in res]})
        rows = []
        for a in pa.table(dt.get_add_actions(flatten=True)).to_pylist():
            f = pq.read_table(os.path.join(d["path"], urllib.parse.unquote(a["path"])), columns=[key, col])
            for k, v in zip(f.column(0).to_pylist(), f.column(1).to_pylist()):
                b = v.encode()
                rows.append({"key": k, "bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()})
        out["digests"].append({"path": d["path"], "reader": "pyarrow " + pa.__version__ + " parquet", "rows": rows})
    return out


def arrow_type(t):
    """Renders an Arrow type as the Delta simple string it stands for."""
    import pyarrow as pa
    import pyarrow.types as pt

    if pt.is_struct(t):
        return "struct<" + ",".join(t.field(i).name + ":" + arrow_type(t.field(i).type)
                                    for i in range(t.num_fields)) + ">"
    if pt.is_list(t) or pt.is_large_list(t) or pt.is_list_view(t):
        return "array<" + arrow_type(t.value_type) + ">"
    if pt.is_map(t):
        return "map<" + arrow_type(t.key_type) + "," + arrow_type(t.item_type) + ">"
    if pt.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    simple = {pa.int64(): "long", pa.int32(): "integer", pa.int16(): "short", pa.int8(): "byte",
              pa.float64(): "double", pa.float32(): "float", pa.bool_(): "boolean",
              pa.string(): "string", pa.large_string(): "string", pa.string_view(): "string",
              pa.binary(): "binary", pa.large_binary(): "binary", pa.date32(): "date"}
    if t in simple:
        return simple[t]
    raise ValueError(f"no Delta type for Arrow {t}")


def read_duckdb(spec):
    """Reads with DuckDB's delta extension, loaded from its PyPI wheel by path."""
    import duckdb
    import duckdb_extension_delta

    ext_dir = os.path.join(os.path.dirname(duckdb_extension_delta.__file__), "extensions")
    ext = [os.path.join(root, f) for root, _, files in os.walk(ext_dir) for f in files
           if f == "delta.duckdb_extension"]
    if len(ext) != 1:
        raise SystemExit(f"delta.duckdb_extension not found (once) under {ext_dir}: {ext}")
    con = duckdb.connect(config={"autoinstall_known_extensions": False,
                                 "autoload_known_extensions": False})
    con.execute(f"LOAD '{ext[0]}'")
    out = {"engine": f"duckdb {duckdb.__version__} delta extension", "tables": []}
    for t in spec["tables"]:
        scan = "delta_scan(" + sql_literal(t["path"]) + ")"
        tbl = con.execute(f"SELECT * FROM {scan}").arrow()
        if hasattr(tbl, "read_all"):
            tbl = tbl.read_all()
        probes = []
        for p in t.get("probes", []):
            got = con.execute(f'SELECT "{t["key"]}" FROM {scan} WHERE "{p["column"]}" = {sql_literal(p["value"])}').fetchall()
            probes.append({"column": p["column"], "value": p["value"], "keys": plain([r[0] for r in got])})
        out["tables"].append({
            "path": t["path"],
            "schema": [{"name": f.name, "type": arrow_type(f.type), "nullable": f.nullable} for f in tbl.schema],
            "rows": plain(tbl.to_pylist()),
            "probes": probes,
        })
    out["digests"] = []
    for d in spec.get("digests") or []:
        scan = "delta_scan(" + sql_literal(d["path"]) + ")"
        got = con.execute(f'SELECT "{d["key"]}", octet_length(encode("{d["column"]}")), sha256("{d["column"]}") FROM {scan}').fetchall()
        out["digests"].append({"path": d["path"], "reader": "duckdb delta_scan",
                               "rows": [{"key": k, "bytes": n, "sha256": h} for k, n, h in got]})
    return out


def read_spark(spec):
    import importlib.metadata as md

    import pyspark
    from pyspark.sql import functions as F

    delta_version = md.version("delta-spark")
    log("starting Spark")
    spark = harness.spark_session("tributary-readers", spec["ivy"], harness.SMALL)
    log("Spark started")
    out = {"engine": f"spark {pyspark.__version__} delta-spark {delta_version}", "tables": []}
    try:
        jvm = spark._jvm
        for t in spec["tables"]:
            path = t["path"]
            log(f"reading {path}")
            df = spark.read.format("delta").load(path)
            rows = [r.asDict(recursive=True) for r in df.collect()]
            log("collected rows")
            hist = spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect()
            history = [{"version": h["version"], "operation": h["operation"],
                        "operationParameters": dict(h["operationParameters"] or {})} for h in hist]
            log("history read")
            detail = spark.sql(f"DESCRIBE DETAIL delta.`{path}`").collect()[0].asDict(recursive=True)
            log("detail read")
            delta_log = jvm.org.apache.spark.sql.delta.DeltaLog.forTable(spark._jsparkSession, path)
            snap = delta_log.update(False, jvm.scala.Option.empty(), jvm.scala.Option.empty())
            txns = {}
            it = snap.transactions().iterator()
            while it.hasNext():
                kv = it.next()
                txns[kv._1()] = kv._2()
            log("probing")
            probes = []
            for p in t.get("probes", []):
                got = df.where(F.col(p["column"]) == F.lit(p["value"])).select(t["key"]).collect()
                probes.append({"column": p["column"], "value": p["value"], "keys": plain([r[0] for r in got])})
            out["tables"].append({
                "path": path,
                "version": snap.version(),
                "protocol": {"minReaderVersion": detail["minReaderVersion"],
                             "minWriterVersion": detail["minWriterVersion"]},
                "numFiles": detail["numFiles"],
                "tableFeatures": sorted(detail.get("tableFeatures") or []),
                "properties": dict(detail.get("properties") or {}),
                # The schema as the log holds it (Spark drops the
                # delta.typeChanges metadata from a DataFrame's schema).
                "typeChanges": type_changes(json.loads(snap.metadata().schemaString())),
                "schema": schema_columns(json.loads(df.schema.json())),
                "partitionColumns": list(detail["partitionColumns"]),
                "rows": plain(rows),
                "history": history,
                "txn": txns,
                "probes": probes,
            })
        out["digests"] = []
        for d in spec.get("digests") or []:
            log(f"digesting {d['path']}")
            df = spark.read.format("delta").load(d["path"])
            got = df.select(F.col(d["key"]), F.octet_length(F.col(d["column"])), F.sha2(F.col(d["column"]), 256)).collect()
            out["digests"].append({"path": d["path"], "reader": "spark delta",
                                   "rows": [{"key": r[0], "bytes": r[1], "sha256": r[2]} for r in got]})
    finally:
        spark.stop()
    return out


def log(msg):
    print(f"read_delta: {msg}", file=sys.stderr, flush=True)


def main():
    engine, spec_path, out_path = sys.argv[1:4]
    with open(spec_path) as f:
        spec = json.load(f)
    if engine == "deltalake":
        out = read_deltalake(spec)
    elif engine == "duckdb":
        out = read_duckdb(spec)
    elif engine == "spark":
        out = read_spark(spec)
    else:
        raise SystemExit(f"unknown engine {engine!r}")
    with open(out_path, "w") as f:
        json.dump(out, f, ensure_ascii=False, allow_nan=False)


if __name__ == "__main__":
    harness.run(main)  # no interpreter finalisation (deltalake)
