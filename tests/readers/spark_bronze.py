"""Writes a bronze Delta table with Spark for the Delta-source test.

usage: spark_bronze.py IVY_DIR TABLE_DIR

Version 0: CREATE + ids 1, 2, 3 (one file); version 1: append ids 4, 5;
version 2: DELETE WHERE id = 2 (rewrites the file, or a deletion vector:
a remove with dataChange=true either way); version 3: append id 6.
Prints the DESCRIBE HISTORY operations, one per line.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402 (tests/pylib)


def main():
    ivy, path = sys.argv[1], sys.argv[2]
    spark = harness.spark_session("tributary-deltasource", ivy, harness.SMALL)
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
