"""Writes the golden Parquet input files of package parquetfmt.

Run with the test venv (scripts/pyenv.sh): python gen.py. The files are
committed; the tests never run this script. Values are fixed (no clock, no
randomness) so that regenerating gives the same rows.
"""
import datetime as dt
import decimal

import pyarrow as pa
import pyarrow.parquet as pq

D = decimal.Decimal
UTC = dt.timezone.utc

types_schema = pa.schema([
    ("b", pa.bool_()),
    ("i8", pa.int8()),
    ("i16", pa.int16()),
    ("i32", pa.int32()),
    ("i64", pa.int64()),
    ("f32", pa.float32()),
    ("f64", pa.float64()),
    ("s", pa.string()),
    ("bin", pa.binary()),
    ("d", pa.date32()),
    ("ts", pa.timestamp("us", tz="UTC")),
    ("ts_ntz", pa.timestamp("us")),
    ("ts_ms", pa.timestamp("ms", tz="UTC")),
    ("dec9", pa.decimal128(9, 2)),
    ("dec18", pa.decimal128(18, 4)),
    ("dec38", pa.decimal128(38, 10)),
    ("ints", pa.list_(pa.int64())),
    ("people", pa.list_(pa.struct([("name", pa.string()), ("score", pa.float64())]))),
    ("tags", pa.map_(pa.string(), pa.int32())),
    ("nested", pa.struct([("x", pa.int32()), ("y", pa.struct([("z", pa.string()), ("zs", pa.list_(pa.string()))]))])),
    ("matrix", pa.list_(pa.list_(pa.int32()))),
    ("m_of_l", pa.map_(pa.string(), pa.list_(pa.float64()))),
])

rows = [
    dict(b=True, i8=-128, i16=-32768, i32=-2147483648, i64=-9223372036854775808, f32=1.5, f64=-2.25,
         s="héllo, \"world\"\n", bin=b"\x00\x01\xff", d=dt.date(1970, 1, 1),
         ts=dt.datetime(2024, 2, 29, 23, 59, 59, 123456, tzinfo=UTC), ts_ntz=dt.datetime(2024, 2, 29, 23, 59, 59, 123456),
         ts_ms=dt.datetime(2001, 9, 9, 1, 46, 40, 123000, tzinfo=UTC),
         dec9=D("-1234567.89"), dec18=D("99999999999999.9999"), dec38=D("-9999999999999999999999999999.9999999999"),
         ints=[1, None, 3], people=[{"name": "ann", "score": 1.0}, None, {"name": None, "score": None}],
         tags={"a": 1, "b": None}, nested={"x": 1, "y": {"z": "deep", "zs": ["p", None]}},
         matrix=[[1, 2], [], None, [3]], m_of_l={"k": [0.5, None]}),
    dict(b=False, i8=127, i16=32767, i32=2147483647, i64=9223372036854775807, f32=float("inf"), f64=float("nan"),
         s="", bin=b"", d=dt.date(2262, 4, 11), ts=dt.datetime(1900, 1, 1, 0, 0, 0, tzinfo=UTC),
         ts_ntz=dt.datetime(1, 1, 1, 0, 0, 0), ts_ms=dt.datetime(1970, 1, 1, tzinfo=UTC),
         dec9=D("0.01"), dec18=D("-0.0001"), dec38=D("1E-10"),
         ints=[], people=[], tags={}, nested={"x": None, "y": None}, matrix=[], m_of_l={}),
    {k: None for k in types_schema.names},
    dict(b=None, i8=0, i16=0, i32=0, i64=0, f32=-0.0, f64=1e300, s="日本語", bin=None, d=dt.date(1582, 10, 4),
         ts=dt.datetime(2038, 1, 19, 3, 14, 8, tzinfo=UTC), ts_ntz=dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
         ts_ms=None, dec9=None, dec18=D("0"), dec38=D("0.0000000001"),
         ints=None, people=None, tags=None, nested=None, matrix=None, m_of_l=None),
]

table = pa.Table.from_pylist(rows, schema=types_schema)
# Several row groups: the reader streams them one at a time.
pq.write_table(table, "types.parquet", row_group_size=2, compression="snappy")
# Spark's legacy flavour: INT96 timestamps, 2-level lists, gzip pages.
legacy = table.select(["i32", "s", "ts", "ints", "people", "tags"])
pq.write_table(legacy, "legacy.parquet", use_deprecated_int96_timestamps=True,
               use_compliant_nested_type=False, compression="gzip", version="1.0")

# Schema evolution across files: a.parquet (id int, name), b.parquet adds
# age and has id as long.
pq.write_table(pa.table({"id": pa.array([1, 2], pa.int32()), "name": ["John", "Mary"]}), "a.parquet")
pq.write_table(pa.table({"id": pa.array([2147483648], pa.int64()), "name": ["Bob"],
                         "age": pa.array([25], pa.int32())}), "b.parquet")
