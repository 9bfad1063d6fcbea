# Reads books.xml with Spark 4.1's built-in XML source; its output is books.spark-4.1.txt,
# which TestSparkSchemas compares with this package's inference.
# Run: $TRIBUTARY_SPARK_VENV/bin/python spark_check.py
import os
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
for opts in [{"rowTag": "book"}, {"rowTag": "book", "inferSchema": "false"}, {"rowTag": "book", "attributePrefix": "@", "valueTag": "#text", "ignoreNamespace": "true"}, {"rowTag": "tag"}]:
    df = spark.read.format("xml").options(**opts).load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "books.xml"))
    print("OPTS", opts)
    print("SCHEMA", df.schema.simpleString())
    for r in df.collect():
        print("ROW", r)
spark.stop()
