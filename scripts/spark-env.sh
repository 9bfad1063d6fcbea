#!/usr/bin/env bash
# Creates (once) the pinned PySpark + delta-spark virtualenv that the reader
# tests (tests/readers) use, and prints its bin dir. Kept apart from
# scripts/pyenv.sh's venv because pyspark is ~450 MB.
# Re-installs only when tests/readers/requirements-spark.txt changes (hash stamp).
# The Delta jars are resolved by Spark itself (ivy) into .cache/ivy on first use.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="${TRIBUTARY_SPARK_VENV:-$root/.cache/spark-venv}"
req="$root/tests/readers/requirements-spark.txt"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
command -v java >/dev/null || { echo "spark-env: java not found on PATH (Spark 4 needs Java 17+)" >&2; exit 1; }
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir -r "$req" >&2
  echo "$want" > "$stamp"
fi
echo "$venv/bin"
