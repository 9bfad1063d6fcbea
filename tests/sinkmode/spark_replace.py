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


def session(ivy):
    import importlib.metadata as md

    import pyspark
    from pyspark.sql import SparkSession

    delta_version = md.version("delta-spark")
    mm = ".".join(pyspark.__version__.split(".")[:2])
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    b = (SparkSession.builder.master("local[1]").appName("tributary-replacewhere")
         .config("spark.ui.enabled", "false")
         .config("spark.driver.host", "127.0.0.1")
         .config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.driver.memory", "768m")
         .config("spark.sql.shuffle.partitions", "1")
         .config("spark.default.parallelism", "1")
         .config("spark.databricks.delta.snapshotPartitions", "1")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.codegen.wholeStage", "false")
         .config("spark.driver.extraJavaOptions", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.warehouse.dir", os.path.join(os.environ.get("TMPDIR", "/tmp"), "tributary-spark-warehouse"))
         .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
         .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
         .config("spark.jars.ivy", ivy))
    jars_dir = os.path.join(ivy, "jars")
    want = [f"io.delta_delta-spark_{mm}_2.13-{delta_version}.jar", f"io.delta_delta-storage-{delta_version}.jar"]
    if all(os.path.exists(os.path.join(jars_dir, j)) for j in want):
        jars = sorted(os.path.join(jars_dir, j) for j in os.listdir(jars_dir)
                      if j.endswith(".jar") and not j.startswith(("org.apache.logging", "org.slf4j")))
        b = b.config("spark.jars", ",".join(jars))
    else:
        b = b.config("spark.jars.packages", f"io.delta:delta-spark_{mm}_2.13:{delta_version}")
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


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
