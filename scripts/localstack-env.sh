#!/usr/bin/env bash
# Prepares LocalStack host mode (no Docker) and prints the environment to
# start it with, one NAME=VALUE per line:
#   - a Python 3.13 venv (pyenv's 3.13, or python3.13 on PATH) with the pinned
#     localstack/requirements.txt, in .cache/localstack-venv (re-installed only
#     when that file changes);
#   - DynamoDB Local, which LocalStack would download at first use (not
#     possible here): taken from the npm package amplify-dynamodb-simulator
#     (scripts/dynamodb-local.sh pins its version and integrity), laid out
#     where LocalStack's dynamodb-local package looks for it under
#     FILESYSTEM_ROOT, with a no-op stand-in for LocalStack's agent jar
#     (localstack/ddb-agent) and the machine's Java (17+) as LocalStack's Java.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache="$root/.cache"
venv="${TRIBUTARY_LOCALSTACK_VENV:-$cache/localstack-venv}"
req="$root/localstack/requirements.txt"
fsroot="$cache/localstack-fs"

log() { echo "localstack-env: $*" >&2; }

# --- Python 3.13 + localstack-core ------------------------------------------
find_python() {
  local c
  for c in "${TRIBUTARY_PYTHON313:-}" \
           "$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"/versions/3.13*/bin/python3.13 \
           "$(command -v python3.13 || true)"; do
    if [ -n "$c" ] && [ -x "$c" ]; then echo "$c"; return; fi
  done
  log "Python 3.13 not found (pyenv install 3.13, or set TRIBUTARY_PYTHON313)"
  exit 1
}
want=$(sha256sum "$req" | cut -d' ' -f1)
stamp="$venv/.requirements.sha256"
if [ ! -x "$venv/bin/python" ]; then
  log "creating $venv"
  "$(find_python)" -m venv "$venv" >&2
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  log "installing localstack/requirements.txt"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2
  echo "$want" > "$stamp"
fi

# --- DynamoDB Local from the npm package (scripts/dynamodb-local.sh) ----------
ddb_dir=$(TRIBUTARY_DYNAMODB_LOCAL_CACHE="$cache/dynamodb-local" "$root/scripts/dynamodb-local.sh")

# LocalStack's layout under FILESYSTEM_ROOT (see localstack/services/dynamodb/packages.py):
# var/lib/localstack/lib/dynamodb-local/2/{DynamoDBLocal.jar,DynamoDBLocal_lib,ddb-local-loader-0.1.jar}
# and its Java 21 at var/lib/localstack/lib/java/21 (the machine's JDK stands in).
libs="$fsroot/var/lib/localstack/lib"
ls_ddb="$libs/dynamodb-local/2"
mkdir -p "$ls_ddb"
ln -sfn "$ddb_dir/DynamoDBLocal.jar" "$ls_ddb/DynamoDBLocal.jar"
ln -sfn "$ddb_dir/DynamoDBLocal_lib" "$ls_ddb/DynamoDBLocal_lib"
agent_src="$root/localstack/ddb-agent/NoopAgent.java"
agent="$ls_ddb/ddb-local-loader-0.1.jar"
if [ ! -f "$agent" ] || [ "$agent_src" -nt "$agent" ]; then
  tmp=$(mktemp -d)
  javac -d "$tmp" "$agent_src"
  printf 'Premain-Class: tributary.NoopAgent\n' > "$tmp/manifest"
  jar --create --file "$agent" --manifest "$tmp/manifest" -C "$tmp" tributary
  rm -rf "$tmp"
fi
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
mkdir -p "$libs/java"
ln -sfn "$java_home" "$libs/java/21"

echo "LOCALSTACK_PYTHON=$venv/bin/python"
echo "FILESYSTEM_ROOT=$fsroot"
