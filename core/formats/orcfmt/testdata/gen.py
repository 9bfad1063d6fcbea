"""Writes the ORC golden fixtures with pyarrow.orc and, for each, the
expected rows as JSON lines (<name>.jsonl) in the rendering of
columnar.AppendValueJSON: dates "YYYY-MM-DD", timestamps
"YYYY-MM-DDTHH:MM:SS.ffffffZ", binary as base64, decimals as numbers.

Run: $TRIBUTARY_VENV/bin/python gen.py (in this directory).
"""
import base64
import datetime as dt
import decimal
import json
import random

import pyarrow as pa
import pyarrow.orc as orc

D = decimal.Decimal


def render(v, typ=None):
    if typ is not None and pa.types.is_map(typ) and v is not None:
        return {str(k): render(x, typ.item_type) for k, x in v}
    if typ is not None and pa.types.is_struct(typ) and v is not None:
        return {f.name: render(v[f.name], f.type) for f in typ}
    if typ is not None and pa.types.is_list(typ) and v is not None:
        return [render(x, typ.value_type) for x in v]
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, bytes):
        return base64.b64encode(v).decode()
    if isinstance(v, dt.datetime):
        return "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ" % (v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond)
    if isinstance(v, dt.date):
        v = spark_date(v)
        return "%04d-%02d-%02d" % (v.year, v.month, v.day)
    if isinstance(v, D):
        return RawNum(str(v))
    if isinstance(v, dict):
        return {k: render(x) for k, x in v.items()}
    if isinstance(v, list):
        if v and isinstance(v[0], tuple):  # map entries
            return {str(k): render(x) for k, x in v}
        return [render(x) for x in v]
    if isinstance(v, float):
        return RawNum(repr(v))
    return v


def spark_date(v):
    """Spark's ORC reader rebases dates before 1582-10-15 from the Julian
    calendar (same year, month and day in the proleptic Gregorian one);
    pyarrow writes proleptic Gregorian days."""
    if v >= dt.date(1582, 10, 15):
        return v
    jdn = (v - dt.date(1970, 1, 1)).days + 2440588
    c = jdn + 32082
    d = (4 * c + 3) // 1461
    e = c - 1461 * d // 4
    m = (5 * e + 2) // 153
    return dt.date(d - 4800 + m // 10, m + 3 - 12 * (m // 10), e - (153 * m + 2) // 5 + 1)


class RawNum(str):
    pass


class Enc(json.JSONEncoder):
    def iterencode(self, o, _one_shot=False):
        return iter([dumps(o)])


def dumps(o):
    if isinstance(o, RawNum):
        return str(o)
    if isinstance(o, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dumps(v) for k, v in o.items()) + "}"
    if isinstance(o, list):
        return "[" + ",".join(dumps(x) for x in o) + "]"
    return json.dumps(o)


def write(name, table, expect=None, **kw):
    orc.write_table(table, name + ".orc", **kw)
    back = orc.read_table(name + ".orc")
    assert back.to_pylist() == table.to_pylist(), name
    if expect is not None:
        return
    with open(name + ".jsonl", "w") as f:
        for row in table.to_pylist():
            f.write(dumps({k: render(v, table.schema.field(k).type) for k, v in row.items()}) + "\n")


def types_table():
    ts = [dt.datetime(2021, 3, 4, 5, 6, 7, 123456), None, dt.datetime(1969, 12, 31, 23, 59, 59, 500000),
          dt.datetime(2015, 1, 1), dt.datetime(1900, 1, 1, 0, 0, 0, 1), dt.datetime(2262, 4, 11, 23, 47, 16, 854775)]
    n = len(ts)
    return pa.table({
        "b": pa.array([True, None, False, True, False, True]),
        "i8": pa.array([1, -128, None, 127, 0, -1], pa.int8()),
        "i16": pa.array([300, None, -32768, 32767, 0, 7], pa.int16()),
        "i32": pa.array([None, 2147483647, -2147483648, 5, 6, 7], pa.int32()),
        "i64": pa.array([9223372036854775807, -9223372036854775808, 0, None, 42, -42], pa.int64()),
        "f32": pa.array([1.5, -2.25, None, 0.0, 3.0, 1e10], pa.float32()),
        "f64": pa.array([3.141592653589793, None, -0.1, 1e300, 2.0, -5e-324], pa.float64()),
        "s": pa.array(["héllo", "", None, "a,b\n\"c\"", "x" * 300, "z"]),
        "bin": pa.array([b"\x00\x01\xff", None, b"", b"abc", b"\xde\xad", b"q"], pa.binary()),
        "d": pa.array([dt.date(2020, 2, 29), dt.date(1969, 12, 31), None, dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(1970, 1, 1)], pa.date32()),
        "ts": pa.array(ts, pa.timestamp("us")),
        "tsz": pa.array(ts, pa.timestamp("us", tz="UTC")),
        "dec": pa.array([D("1.50"), D("-12345678.99"), None, D("0.00"), D("99999999.99"), D("-0.01")], pa.decimal128(10, 2)),
        "dec38": pa.array([D("1234567890123456789012345678.0123456789"), None, D("-0.0000000001"), D("0E-10"), D("1.0000000000"), D("-9999999999999999999999999999.9999999999")], pa.decimal128(38, 10)),
    })


def nested_table():
    st = pa.struct([("a", pa.int64()), ("b", pa.string())])
    return pa.table({
        "id": pa.array([1, 2, 3, 4, 5], pa.int64()),
        "st": pa.array([{"a": 1, "b": "x"}, None, {"a": None, "b": "y"}, {"a": 4, "b": None}, {"a": 5, "b": "z"}], st),
        "li": pa.array([[1, 2, 3], [], None, [None, 5], [6]], pa.list_(pa.int64())),
        "m": pa.array([[("k1", 1), ("k2", None)], None, [], [("k3", 3)], [("a", 1), ("b", 2), ("c", 3)]], pa.map_(pa.string(), pa.int32())),
        "ls": pa.array([[{"a": 1, "b": "p"}, None], None, [{"a": None, "b": None}], [], [{"a": 9, "b": "q"}]], pa.list_(st)),
        "deep": pa.array([{"in": {"v": [1.5]}}, {"in": None}, None, {"in": {"v": None}}, {"in": {"v": []}}],
                         pa.struct([("in", pa.struct([("v", pa.list_(pa.float64()))]))])),
    })


def stripes_table(n=3000):
    r = random.Random(7)
    words = ["alpha", "beta", "gamma", "delta", None]
    big = []
    for i in range(n):
        big.append(r.randint(0, 1000) if i % 97 else r.randint(0, 1 << 40))  # patched base
    return pa.table({
        "seq": pa.array(range(n), pa.int64()),                                 # delta
        "down": pa.array([1000000 - 3 * i for i in range(n)], pa.int64()),     # negative delta
        "rep": pa.array([7] * n, pa.int32()),                                   # short repeat / runs
        "rnd": pa.array([r.randint(-(1 << 62), 1 << 62) for _ in range(n)], pa.int64()),  # direct
        "big": pa.array(big, pa.int64()),
        "small": pa.array([r.randint(-100, 100) if i % 5 else None for i in range(n)], pa.int16()),
        "word": pa.array([words[r.randrange(5)] for _ in range(n)]),           # dictionary
        "uniq": pa.array(["u%08d-%d" % (i, r.randrange(1 << 30)) for i in range(n)]),  # direct
        "flag": pa.array([r.random() < 0.3 if i % 11 else None for i in range(n)]),
        "tiny": pa.array([i % 256 - 128 for i in range(n)], pa.int8()),
        "tinyrep": pa.array([(i // 500) % 3 for i in range(n)], pa.int8()),  # byte runs
        "on": pa.array([i % 1000 < 900 for i in range(n)]),                   # boolean runs
        "ts": pa.array([dt.datetime(2000, 1, 1) + dt.timedelta(seconds=37 * i, microseconds=i) for i in range(n)], pa.timestamp("us")),
        "dec": pa.array([D(r.randint(-10**6, 10**6)).scaleb(-3) for _ in range(n)], pa.decimal128(12, 3)),
    })


if __name__ == "__main__":
    t = types_table()
    for c in ["uncompressed", "zlib", "snappy", "zstd", "lz4"]:
        write("types_" + c, t, None if c == "uncompressed" else "types_uncompressed", compression=c)
    # Spark 4's ORC reader cannot parse the type "timestamp with local
    # time zone" (tsz), and the Java ORC reader rejects the negative
    # nanoseconds pyarrow writes for fractional instants before 1970; the
    # Spark round trip reads this copy without either.
    sp = t.drop_columns(["tsz"])
    i = sp.schema.get_field_index("ts")
    sp = sp.set_column(i, "ts", pa.array([dt.datetime(2021, 3, 4, 5, 6, 7, 123456), None, dt.datetime(1969, 12, 31, 23, 59, 59),
                                          dt.datetime(2015, 1, 1), dt.datetime(1900, 1, 1), dt.datetime(2262, 4, 11, 23, 47, 16, 854775)], pa.timestamp("us")))
    write("types_spark", sp, compression="zstd")
    write("nested", nested_table(), compression="zstd")
    s = stripes_table()
    write("stripes", s, compression="zlib", stripe_size=4096, batch_size=300, row_index_stride=1000)
    write("stripes_v1", s, "stripes", compression="snappy", file_version="0.11", stripe_size=8192, batch_size=400, dictionary_key_size_threshold=1.0)
    write("empty", t.slice(0, 0))
    # Schema evolution across files (as parquetfmt's a/b.parquet): a.orc
    # (id int, name), b.orc adds age and has id as long.
    write("a", pa.table({"id": pa.array([1, 2], pa.int32()), "name": ["John", "Mary"]}), compression="zlib")
    write("b", pa.table({"id": pa.array([2147483648], pa.int64()), "name": ["Bob"], "age": pa.array([25], pa.int32())}), compression="snappy")
    for n in ["stripes", "stripes_v1"]:
        print(n, orc.ORCFile(n + ".orc").nstripes, "stripes")
