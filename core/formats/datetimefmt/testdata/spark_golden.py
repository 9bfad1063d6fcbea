"""Regenerates spark_golden.json: what Spark parses for each (pattern, value),
with to_date / to_timestamp / to_timestamp_ntz, session time zone UTC or the
case's zone, locale en-US. Run with the Spark venv's python:
  $TRIBUTARY_SPARK_VENV/bin/python core/formats/datetimefmt/testdata/spark_golden.py
"""
import json, os, sys
from pyspark.sql import SparkSession

here = os.path.dirname(os.path.abspath(__file__))
cases = [
    # pattern, value, zone
    ("yyyy-MM-dd", "2021-03-04", "UTC"),
    ("yyyy-MM-dd", "2021-3-4", "UTC"),
    ("yyyy-MM-dd", "2021-02-30", "UTC"),
    ("yyyy-MM-dd", "2021-03-04 ", "UTC"),
    ("yyyy-M-d", "2021-3-4", "UTC"),
    ("yyyy-M-d", "2021-03-04", "UTC"),
    ("dd/MM/yyyy", "04/03/2021", "UTC"),
    ("dd/MM/yyyy", "4/3/2021", "UTC"),
    ("M/d/yy", "12/25/99", "UTC"),
    ("yyyyMMdd", "20210304", "UTC"),
    ("yyyyMMddHHmmss", "20210304050607", "UTC"),
    ("yyyy.DDD", "2021.063", "UTC"),
    ("yyyy.D", "2020.366", "UTC"),
    ("dd MMM yyyy", "04 Mar 2021", "UTC"),
    ("dd MMM yyyy", "04 mar 2021", "UTC"),
    ("dd MMMM yyyy", "04 March 2021", "UTC"),
    ("dd MMMM yyyy", "04 Mar 2021", "UTC"),
    ("MMM d, yyyy h:mm a", "Mar 4, 2021 5:06 PM", "UTC"),
    ("MMM d, yyyy h:mm a", "Mar 4, 2021 12:06 AM", "UTC"),
    ("yyyy-MM-dd hh:mm", "2021-03-04 05:06", "UTC"),
    ("yyyy-MM-dd KK:mm a", "2021-03-04 11:06 pm", "UTC"),
    ("yyyy-MM-dd kk:mm", "2021-03-04 24:06", "UTC"),
    ("yyyy-MM-dd HH:mm:ss", "2021-03-04 05:06:07", "UTC"),
    ("yyyy-MM-dd HH:mm:ss", "2021-03-04 05:06:07", "America/Los_Angeles"),
    ("yyyy-MM-dd HH:mm:ss", "2021-03-04 25:06:07", "UTC"),
    ("yyyy-MM-dd HH:mm:ss.SSS", "2021-03-04 05:06:07.123", "UTC"),
    ("yyyy-MM-dd HH:mm:ss.SSS", "2021-03-04 05:06:07.1", "UTC"),
    ("yyyy-MM-dd HH:mm:ss.SSSSSS", "2021-03-04 05:06:07.123456", "UTC"),
    ("yyyy-MM-dd HH:mm:ss.SSSSSSSSS", "2021-03-04 05:06:07.123456789", "UTC"),
    ("yyyy-MM-dd HH:mm:ss[.SSS]", "2021-03-04 05:06:07", "UTC"),
    ("yyyy-MM-dd HH:mm:ss[.SSS]", "2021-03-04 05:06:07.5", "UTC"),
    ("yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]", "2021-03-04T05:06:07.5+01:00", "UTC"),
    ("yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]", "2021-03-04T05:06:07Z", "UTC"),
    ("yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]", "2021-03-04T05:06:07", "Asia/Tokyo"),
    ("yyyy-MM-dd'T'HH:mm:ssX", "2021-03-04T05:06:07+0530", "UTC"),
    ("yyyy-MM-dd'T'HH:mm:ssX", "2021-03-04T05:06:07-08", "UTC"),
    ("yyyy-MM-dd'T'HH:mm:ssXX", "2021-03-04T05:06:07+0530", "UTC"),
    ("yyyy-MM-dd'T'HH:mm:ssxxx", "2021-03-04T05:06:07+05:30", "UTC"),
    ("yyyy-MM-dd HH:mm:ss Z", "2021-03-04 05:06:07 -0800", "UTC"),
    ("yyyy-MM-dd HH:mm:ss ZZZZZ", "2021-03-04 05:06:07 Z", "UTC"),
    ("yyyy-MM-dd HH:mm:ss O", "2021-03-04 05:06:07 GMT+8", "UTC"),
    ("yyyy-MM-dd HH:mm:ss OOOO", "2021-03-04 05:06:07 GMT+08:00", "UTC"),
    ("yyyy-MM-dd HH:mm:ss VV", "2021-03-04 05:06:07 America/New_York", "UTC"),
    ("yyyy-MM-dd HH:mm:ss z", "2021-03-04 05:06:07 UTC", "Asia/Tokyo"),
    ("yyyy-MM-dd'T'HH:mm", "2021-03-04T05:06", "UTC"),
    ("'day' d 'of' M, yyyy", "day 4 of 3, 2021", "UTC"),
    ("yyyy-MM-dd''HH", "2021-03-04'05", "UTC"),
    ("yyyy-MM", "2021-03", "UTC"),
    ("yyyy", "2021", "UTC"),
    ("MM-dd", "03-04", "UTC"),
    ("HH:mm", "05:06", "UTC"),
    ("yyyy-MM-dd G", "2021-03-04 AD", "UTC"),
    ("yyyy-MM-dd[ HH:mm]", "2021-03-04 05:06", "UTC"),
    ("yyyy-MM-dd[ HH:mm]", "2021-03-04", "UTC"),
    ("yyyy-MM-dd", "21-03-04", "UTC"),
    ("yyyy/MM/dd", "2021-03-04", "UTC"),
    ("MMM yyyy", "Foo 2021", "UTC"),
]
spark = (SparkSession.builder.master("local[1]").appName("golden")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.ui.enabled", "false").getOrCreate())
out = []
for pat, val, zone in cases:
    spark.conf.set("spark.sql.session.timeZone", zone)
    spark.conf.set("spark.sql.legacy.timeParserPolicy", "CORRECTED")
    spark.conf.set("spark.sql.ansi.enabled", "false")
    row = {"pattern": pat, "value": val, "zone": zone}
    for fn, key in (("to_date", "date"), ("to_timestamp", "timestamp"), ("to_timestamp_ntz", "ntz")):
        try:
            r = spark.sql(f"SELECT CAST({fn}(?, ?) AS STRING) AS v", args=[val, pat]).collect()[0][0] if fn != "to_timestamp" else \
                spark.sql("SELECT date_format(to_timestamp(?, ?), \"yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX\") AS v", args=[val, pat]).collect()[0][0]
            if fn == "to_timestamp" and r is not None:
                # as an instant in UTC
                r = spark.sql("SELECT CAST(unix_micros(to_timestamp(?, ?)) AS STRING)", args=[val, pat]).collect()[0][0]
        except Exception as e:  # a pattern Spark refuses
            r = "ERROR: " + str(e).splitlines()[0][:120]
        row[key] = r
    out.append(row)
with open(os.path.join(here, "spark_golden.json"), "w") as f:
    json.dump(out, f, indent=1, ensure_ascii=False)
    f.write("\n")
print(len(out), "cases")
