"""Reads a Delta table with delta-rs and prints what it sees as JSON.

Usage: read_table.py TABLE APP_ID

Prints {"version", "txn" (the streaming txn version of APP_ID), "columns",
"history" (the versions DESCRIBE HISTORY lists), "rows"}.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pylib"))
import harness  # noqa: E402 (tests/pylib)

from deltalake import DeltaTable


def main():
    path, app_id = sys.argv[1:3]
    dt = DeltaTable(path)
    out = {
        "version": dt.version(),
        "txn": dt.transaction_version(app_id),
        "columns": [f.name for f in dt.schema().fields],
        "history": sorted(h["version"] for h in dt.history()),
        "rows": dt.to_pyarrow_table().to_pylist(),
    }
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    harness.run(main)  # no interpreter finalisation (deltalake)
