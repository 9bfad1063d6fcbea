# Regenerates spark_numbers.json (run by hand with PySpark; the Go test
# TestNumbersAsSpark compares Tributary's XML reader with it).
#   python spark_numbers.py  (from this directory, pyspark importable)
import json
import os
import tempfile

from pyspark.sql import SparkSession

here = os.path.dirname(os.path.abspath(__file__))
golden = json.load(open(os.path.join(here, "spark_numbers.json")))
values = golden["values"]
s = SparkSession.builder.master("local[1]").getOrCreate()
tmp = tempfile.mkdtemp()
allrows = os.path.join(tmp, "all.xml")
with open(allrows, "w") as f:
    f.write("<rows>" + "".join("<row><v>%s</v></row>" % v for v in values) + "</rows>\n")
read = {}
for t in golden["read"]:
    rows = s.read.option("rowTag", "row").schema("v %s" % t).xml(allrows).collect()
    read[t] = [None if r.v is None else str(r.v) for r in rows]
infer = {}
for pd in ("false", "true"):
    types = []
    for i, v in enumerate(values):
        one = os.path.join(tmp, "one%d.xml" % i)
        with open(one, "w") as f:
            f.write("<rows><row><v>%s</v></row></rows>\n" % v)
        df = s.read.option("rowTag", "row").option("prefersDecimal", pd).xml(one)
        types.append(df.schema["v"].dataType.simpleString())
    infer["prefersDecimal=" + pd] = types
golden.update(spark=s.version, read=read, infer=infer)
with open(os.path.join(here, "spark_numbers.json"), "w") as f:
    json.dump(golden, f, indent=1, ensure_ascii=False)
