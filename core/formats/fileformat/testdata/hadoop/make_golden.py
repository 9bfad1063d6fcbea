# Writes Hadoop-framed .snappy and .lz4 text files with Spark's own codecs
# (SnappyCodec, Lz4Codec), the golden inputs of TestHadoopCodecsGolden.
# Run: $TRIBUTARY_SPARK_VENV/bin/python make_golden.py
import glob, os, shutil, tempfile
from pyspark.sql import SparkSession

spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
lines = [f"line {i} " + "x" * (i % 50) for i in range(20000)]
here = os.path.dirname(os.path.abspath(__file__))
for codec in ["snappy", "lz4"]:
    out = tempfile.mkdtemp()
    spark.createDataFrame([(l,) for l in lines], "value string").coalesce(1).write.mode("overwrite").option("compression", codec).text(out + "/t")
    part = [p for p in glob.glob(out + "/t/part-*") if not p.endswith(".crc")][0]
    shutil.copy(part, os.path.join(here, "spark." + codec))
    shutil.rmtree(out)
spark.stop()
