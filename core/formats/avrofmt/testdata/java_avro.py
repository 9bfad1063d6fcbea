# Writes testdata/java.<codec>.avro with Avro's Java reference library
# (avro-1.12.1.jar, shipped in pyspark's jars; driven through Spark's JVM
# gateway): unions, logical types, nesting, in the null, deflate, snappy
# and zstandard codecs. TestJavaWritten reads them back.
# Run: $TRIBUTARY_SPARK_VENV/bin/python java_avro.py
import os
from pyspark.sql import SparkSession

spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
jvm = spark._jvm
avro = jvm.org.apache.avro
here = os.path.dirname(os.path.abspath(__file__))
SCHEMA = """{"type":"record","name":"r","namespace":"t","fields":[
 {"name":"id","type":"long"},
 {"name":"name","type":["null","string"]},
 {"name":"num","type":["int","long"]},
 {"name":"multi","type":["null","int","string"]},
 {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":3}},
 {"name":"day","type":{"type":"int","logicalType":"date"}},
 {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},
 {"name":"tags","type":{"type":"array","items":"string"}},
 {"name":"attrs","type":{"type":"map","values":"long"}},
 {"name":"inner","type":{"type":"record","name":"in","fields":[{"name":"x","type":"double"},{"name":"e","type":{"type":"enum","name":"c","symbols":["A","B"]}}]}}]}"""
schema = avro.Schema.Parser().parse(SCHEMA)
inner_schema = schema.getField("inner").schema()
enum_schema = inner_schema.getField("e").schema()
for codec, factory in [("null", avro.file.CodecFactory.nullCodec()), ("deflate", avro.file.CodecFactory.deflateCodec(6)),
                       ("snappy", avro.file.CodecFactory.snappyCodec()), ("zstandard", avro.file.CodecFactory.zstandardCodec(3))]:
    writer = avro.file.DataFileWriter(avro.generic.GenericDatumWriter(schema))
    writer.setCodec(factory)
    path = os.path.join(here, f"java.{codec}.avro")
    writer.create(schema, jvm.java.io.File(path))
    for i in range(1000):
        r = avro.generic.GenericData.Record(schema)
        r.put("id", jvm.java.lang.Long(i))
        r.put("name", None if i % 3 == 0 else f"n{i}")
        r.put("num", jvm.java.lang.Integer(i) if i % 2 == 0 else jvm.java.lang.Long(i * 10000000000))
        r.put("multi", None if i % 4 == 0 else (jvm.java.lang.Integer(i) if i % 4 == 1 else f"s{i}"))
        unscaled = jvm.java.math.BigInteger(str(i * 1001 - 500000))
        r.put("amount", jvm.java.nio.ByteBuffer.wrap(unscaled.toByteArray()))
        r.put("day", jvm.java.lang.Integer(19000 + i))
        r.put("ts", jvm.java.lang.Long(1700000000000000 + i * 1234567))
        tags = jvm.java.util.ArrayList()
        for k in range(i % 3):
            tags.add(f"t{k}")
        r.put("tags", tags)
        attrs = jvm.java.util.HashMap()
        attrs.put("k", jvm.java.lang.Long(i))
        r.put("attrs", attrs)
        inner = avro.generic.GenericData.Record(inner_schema)
        inner.put("x", jvm.java.lang.Double(i / 4))
        inner.put("e", avro.generic.GenericData.EnumSymbol(enum_schema, "A" if i % 2 == 0 else "B"))
        r.put("inner", inner)
        writer.append(r)
    writer.close()
    print("wrote", path)
spark.stop()
