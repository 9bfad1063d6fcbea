"""Runs replaceWhere with Spark + delta-spark and reads Tributary's tables,
for the differential test of TestReplaceWhereMatchesSpark.

usage: spark_replace.py IVY_DIR SPEC_JSON OUT_JSON

SPEC_JSON: {"schema": DDL, "partitionBy": [cols], "work": DIR,
            "cases": [{"name", "initial": JSON-lines file, "batch": JSON-lines
                       file, "where": predicate, "tributary": table dir}]}

For every case Spark creates a table from the initial rows (read with
the schema, partitioned), then writes the batch rows with
mode("overwrite").option("replaceWhere", where). OUT_JSON gets, per case,
Spark's rows after that write (or its error class), and the rows of
Tributary's table as Spark reads them (or null when it does not exist),
each row rendered "col=value|..." in schema order, sorted.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402 (tests/pylib)


def session(ivy):
    return harness.spark_session("tributary-replacewhere", ivy, harness.SMALL)


def render(df, cols):
    out = []
    for r in df.collect():
        d = r.asDict()
        out.append("|".join(f"{c}={d.get(c)}" for c in cols))
    return sorted(out)


def main():
    ivy, spec_path, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(spec_path) as f:
        spec = json.load(f)
    spark = session(ivy)
    cols = [re.split(r"\s+", c.strip())[0] for c in spec["schema"].split(",")]
    out = {"cases": []}
    try:
        for i, case in enumerate(spec["cases"]):
            path = os.path.join(spec["work"], f"spark-{i}")
            res = {"name": case["name"]}
            spark.read.schema(spec["schema"]).json(case["initial"]).coalesce(1) \
                .write.format("delta").partitionBy(*spec["partitionBy"]).save(path)
            try:
                spark.read.schema(spec["schema"]).json(case["batch"]).coalesce(1) \
                    .write.format("delta").mode("overwrite").option("replaceWhere", case["where"]).save(path)
                res["spark"] = render(spark.read.format("delta").load(path), cols)
            except Exception as e:  # the error class, e.g. DELTA_REPLACE_WHERE_MISMATCH
                m = re.search(r"\[([A-Z_]+)[\].]", str(e))
                res["sparkError"] = m.group(1) if m else str(e)[:300]
            trib = case["tributary"]
            if os.path.isdir(os.path.join(trib, "_delta_log")):
                res["tributary"] = render(spark.read.format("delta").load(trib), cols)
            out["cases"].append(res)
    finally:
        spark.stop()
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
