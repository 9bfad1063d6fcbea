#!/usr/bin/env bash
# Fetches DynamoDB Local (once) and prints the directory holding
# DynamoDBLocal.jar and DynamoDBLocal_lib/. Amazon's download site is not
# reachable here, so it is taken from the npm package amplify-dynamodb-simulator
# (pinned version and integrity below, fetched with `npm pack`; DynamoDB Local
# 1.25.1 inside) into .cache/dynamodb-local/<version>/, or under
# TRIBUTARY_DYNAMODB_LOCAL_CACHE. Used by scripts/localstack-env.sh (LocalStack's
# DynamoDB) and by the load test's -dynamodb-local flag (tests/loadtest).
# Running it needs Java 17+: java -jar DIR/DynamoDBLocal.jar -inMemory -port N.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache="${TRIBUTARY_DYNAMODB_LOCAL_CACHE:-$root/.cache/dynamodb-local}"

ddb_pkg=amplify-dynamodb-simulator
ddb_version=2.9.30
ddb_integrity='sha512-xTeeRLvzEfqyd5lh3bH4c0kHvSHHmmhD5ZDsHFKAQ5g2Zl6JqlFdutaQhCLHzxEp6Ry1o7TB6niIoXuQAnSewQ=='

log() { echo "dynamodb-local: $*" >&2; }

ddb_dir="$cache/$ddb_version"
if [ ! -f "$ddb_dir/DynamoDBLocal.jar" ]; then
  log "fetching $ddb_pkg@$ddb_version (DynamoDB Local)"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "$ddb_pkg@$ddb_version" >/dev/null)
  tgz="$tmp/$ddb_pkg-$ddb_version.tgz"
  got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
  if [ "$got" != "$ddb_integrity" ]; then
    log "$tgz: integrity $got, want $ddb_integrity"
    exit 1
  fi
  tar -xzf "$tgz" -C "$tmp" package/emulator
  rm -rf "$ddb_dir"
  mkdir -p "$(dirname "$ddb_dir")"
  mv "$tmp/package/emulator" "$ddb_dir"
  rm -rf "$tmp"
  trap - EXIT
fi
echo "$ddb_dir"
