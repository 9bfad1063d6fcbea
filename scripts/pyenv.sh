#!/usr/bin/env bash
# Creates (once) the pinned Python virtualenv the tests use and prints its bin dir;
# `pyenv.sh bench` does the same for the benchmark scripts' venv.
# Re-installs only when tests/requirements.txt changes (hash stamp).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="${TRIBUTARY_VENV:-$root/.cache/venv}"
req="$root/tests/requirements.txt"
if [ "${1:-}" = bench ]; then
  # The benchmark scripts' tools (bench/requirements.txt), in a venv of their own.
  venv="${TRIBUTARY_BENCH_VENV:-$root/.cache/bench-venv}"
  req="$root/bench/requirements.txt"
fi
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2
  echo "$want" > "$stamp"
fi
echo "$venv/bin"
