"""Writes a bronze Delta table with Spark for the Delta-source test.

usage: spark_bronze.py IVY_DIR TABLE_DIR

Version 0: CREATE + ids 1, 2, 3 (one file); version 1: append ids 4, 5;
version 2: DELETE WHERE id = 2 (rewrites the file, or a deletion vector:
a remove with dataChange=true either way); version 3: append id 6.
Prints the DESCRIBE HISTORY operations, one per line.
"""
import os
import sys


def main():
    import importlib.metadata as md

    import pyspark
    from pyspark.sql import SparkSession

    ivy, path = sys.argv[1], sys.argv[2]
    delta_version = md.version("delta-spark")
    mm = ".".join(pyspark.__version__.split(".")[:2])
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    b = (SparkSession.builder.master("local[1]").appName("tributary-deltasource")
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
    try:
        df = lambda ids: spark.createDataFrame([(i, f"v{i}") for i in ids], "id BIGINT, v STRING").coalesce(1)
        df([1, 2, 3]).write.format("delta").save(path)
        df([4, 5]).write.format("delta").mode("append").save(path)
        spark.sql(f"DELETE FROM delta.`{path}` WHERE id = 2")
        df([6]).write.format("delta").mode("append").save(path)
        for h in spark.sql(f"DESCRIBE HISTORY delta.`{path}`").orderBy("version").collect():
            print(h["version"], h["operation"])
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
