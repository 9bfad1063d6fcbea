"""Independent reader for the end-to-end tests.

Reads a Delta table on an S3-compatible endpoint with the deltalake (delta-rs)
package and prints one JSON document on stdout:
{"version": <int>, "columns": [...], "rows": [{column: value, ...}, ...]}.

Usage: read_table.py <endpoint-url> <s3://bucket/table>
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pylib"))
import harness  # noqa: E402 (tests/pylib)

from deltalake import DeltaTable


def main() -> None:
    endpoint, uri = sys.argv[1], sys.argv[2]
    storage_options = {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ALLOW_HTTP": "true",
        "AWS_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        # Reading needs only GET/LIST; this only silences delta-rs's check
        # for a locking provider, which applies to writes.
        "AWS_S3_ALLOW_UNSAFE_RENAME": "true",
    }
    dt = DeltaTable(uri, storage_options=storage_options)
    table = dt.to_pyarrow_table()
    out = {
        "version": dt.version(),
        "columns": table.column_names,
        "rows": table.to_pylist(),
    }
    json.dump(out, sys.stdout, default=str, ensure_ascii=False)


if __name__ == "__main__":
    harness.run(main)  # no interpreter finalisation (deltalake)
