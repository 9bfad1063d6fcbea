"""Shared helpers of Tributary's Python test scripts.

The scripts are run by path with a venv's python (TRIBUTARY_VENV for
deltalake/duckdb/pyarrow, TRIBUTARY_SPARK_VENV for pyspark + delta-spark);
each puts this directory on sys.path itself:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
    import harness

spark_session(app, ivy, conf) builds the local Spark session with Delta that
every Spark script uses (one core, little memory, UTC, no UI, no
spark-warehouse/ in the working directory, the delta-spark jars of the
installed delta-spark release: from IVY_DIR once resolved, else resolved
into it).

run(main) runs a script's main and leaves without interpreter
finalisation: deltalake's native threads sometimes abort the process at
shutdown ("terminate called without an active exception") after the
script has succeeded, which would turn a passed comparison into a failure.
"""
import os
import sys
import tempfile
import traceback

# Settings that keep Spark small and quick on a 2-core machine with a few
# tiny tables: one partition everywhere, interpreted (not compiled) plans.
SMALL = {
    "spark.default.parallelism": "1",
    "spark.databricks.delta.snapshotPartitions": "1",
    "spark.sql.codegen.wholeStage": "false",
}


def spark_session(app, ivy, conf=None):
    """Returns a local[1] SparkSession with Delta for app.

    ivy is the Ivy cache of the delta-spark jars; conf adds (or overrides)
    Spark settings, e.g. SMALL.
    """
    import importlib.metadata as md

    import pyspark
    from pyspark.sql import SparkSession

    delta_version = md.version("delta-spark")
    mm = ".".join(pyspark.__version__.split(".")[:2])
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    settings = {
        "spark.ui.enabled": "false",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.memory": "768m",
        "spark.sql.shuffle.partitions": "1",
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.extraJavaOptions": "-XX:+UseSerialGC -XX:TieredStopAtLevel=1",
        "spark.sql.session.timeZone": "UTC",
        # No spark-warehouse/ left in the caller's working directory.
        "spark.sql.warehouse.dir": os.path.join(tempfile.gettempdir(), "tributary-spark-warehouse"),
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "spark.jars.ivy": ivy,
    }
    settings.update(conf or {})
    b = SparkSession.builder.master("local[1]").appName(app)
    for k, v in settings.items():
        b = b.config(k, v)
    # Once ivy has resolved the Delta jars, use them directly: no
    # resolution, no network.
    jars_dir = os.path.join(ivy, "jars")
    want = [f"io.delta_delta-spark_{mm}_2.13-{delta_version}.jar", f"io.delta_delta-storage-{delta_version}.jar"]
    if all(os.path.exists(os.path.join(jars_dir, j)) for j in want):
        # Spark ships its own log4j and slf4j.
        jars = sorted(os.path.join(jars_dir, j) for j in os.listdir(jars_dir)
                      if j.endswith(".jar") and not j.startswith(("org.apache.logging", "org.slf4j")))
        b = b.config("spark.jars", ",".join(jars))
    else:
        b = b.config("spark.jars.packages", f"io.delta:delta-spark_{mm}_2.13:{delta_version}")
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def finish(code=0):
    """Flushes stdout and stderr and exits with code at once, skipping
    interpreter finalisation (see the module's doc)."""
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:
            pass
    os._exit(code)


def run(main, *args):
    """Runs main(*args) and exits through finish: 0 when it returns, the
    exit status of a SystemExit it raises (a message is printed to stderr,
    status 1, as Python does), 1 with the traceback for any other error."""
    code = 0
    try:
        main(*args)
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    finish(code)
