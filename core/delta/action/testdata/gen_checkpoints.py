"""Writes the checkpoint fixtures of colread_test.go with Spark and delta-rs.

usage: gen_checkpoints.py spark IVY_DIR OUT_DIR   (TRIBUTARY_SPARK_VENV's python)
       gen_checkpoints.py deltars OUT_DIR         (TRIBUTARY_VENV's python)

Each table is built in a scratch directory under OUT_DIR/tables and its
newest checkpoint copied to OUT_DIR/<name>.checkpoint.parquet:
  spark-dv:          540 files in 10 partitions, 91 with deletion vectors,
                     110 removes, a txn, stats as JSON and as a struct
  spark-struct-only: 278 files, stats only as stats_parsed
                     (writeStatsAsJson=false), partitionValues_parsed
  deltars-partitioned: 800 files in 100 partitions over 8 commits, a
                     delete (removes), stats JSON and stats_parsed
"""
import glob
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "pylib"))
import harness  # noqa: E402 (tests/pylib)


def newest_checkpoint(table, out, name):
    cks = sorted(glob.glob(os.path.join(table, "_delta_log", "*.checkpoint.parquet")))
    if not cks:
        raise SystemExit(f"{table}: no checkpoint")
    shutil.copy(cks[-1], os.path.join(out, name + ".checkpoint.parquet"))
    print(name, os.path.basename(cks[-1]), os.path.getsize(cks[-1]))


def spark(ivy, out):
    s = harness.spark_session("tributary-checkpoints", ivy)
    try:
        rows = lambda n, off: s.range(off, off + n).selectExpr(
            "id", "cast(id % 10 as int) as p", "concat('v', id) as v", "date_add(date'2024-01-01', cast(id % 300 as int)) as d")
        t = os.path.join(out, "tables", "spark-dv")
        rows(1200, 0).repartition(60).write.format("delta").partitionBy("p").option("txnAppId", "gen").option("txnVersion", 0).save(t)
        s.sql(f"ALTER TABLE delta.`{t}` SET TBLPROPERTIES ('delta.enableDeletionVectors'='true', "
              "'delta.checkpoint.writeStatsAsStruct'='true', 'delta.checkpointInterval'='1000')")
        s.sql(f"DELETE FROM delta.`{t}` WHERE id % 50 = 7")
        s.sql(f"DELETE FROM delta.`{t}` WHERE id < 100")
        rows(100, 1200).repartition(5).write.format("delta").mode("append").partitionBy("p").save(t)
        s._jvm.org.apache.spark.sql.delta.DeltaLog.forTable(s._jsparkSession, t).checkpoint()
        newest_checkpoint(t, out, "spark-dv")

        t = os.path.join(out, "tables", "spark-struct-only")
        rows(600, 0).repartition(40).write.format("delta").partitionBy("p").save(t)
        s.sql(f"ALTER TABLE delta.`{t}` SET TBLPROPERTIES ('delta.checkpoint.writeStatsAsJson'='false', "
              "'delta.checkpoint.writeStatsAsStruct'='true')")
        s.sql(f"DELETE FROM delta.`{t}` WHERE p = 3")
        s._jvm.org.apache.spark.sql.delta.DeltaLog.forTable(s._jsparkSession, t).checkpoint()
        newest_checkpoint(t, out, "spark-struct-only")
    finally:
        s.stop()


def deltars(out):
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    t = os.path.join(out, "tables", "deltars-partitioned")
    for c in range(8):
        ids = list(range(c * 1000, (c + 1) * 1000))
        data = pa.table({"id": pa.array(ids, pa.int64()), "p": pa.array([i % 100 for i in ids], pa.int32()),
                         "v": pa.array([f"v{i}" if i % 7 else None for i in ids])})
        write_deltalake(t, data, mode="append", partition_by=["p"],
                        configuration={"delta.checkpoint.writeStatsAsStruct": "true"} if c == 0 else None)
    dt = DeltaTable(t)
    dt.delete("p < 5")
    dt = DeltaTable(t)
    dt.create_checkpoint()
    newest_checkpoint(t, out, "deltars-partitioned")


if __name__ == "__main__":
    if sys.argv[1] == "spark":
        spark(sys.argv[2], sys.argv[3])
    else:
        harness.run(deltars, sys.argv[2])  # no interpreter finalisation (deltalake)
