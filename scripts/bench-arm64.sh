#!/usr/bin/env bash
# The end-to-end NDJSON -> Delta benchmark (bench/ BenchmarkJSONToDelta) on
# linux/arm64, the Lambda functions' architecture, next to amd64 on this
# machine. Without arm64 hardware the arm64 test binary runs under
# qemu-user (apt package qemu-user, installed here when missing and the
# script runs as root): user-mode emulation translates every instruction,
# so its MB/s is a floor far below a Graviton core's, not a Lambda figure.
# What it does show is that the arm64 build produces the same tables (the
# benchmark checks its batches) and how its allocations compare.
# Usage: scripts/bench-arm64.sh [bench regexp]   (default JSONToDelta/infer)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
go="${GO:-go}"
filter="${1:-JSONToDelta/infer}"
cd "$root"
if ! command -v qemu-aarch64 >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing qemu-user (apt)..." >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null
  else
    echo "qemu-aarch64 not found: install qemu-user (Debian/Ubuntu) and retry" >&2
    exit 1
  fi
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The dataset is generated once (natively) under .cache/bench, shared by both runs.
"$go" test -run '^$' -bench "${filter%%/*}/^\$" -benchtime 1x ./bench/ >/dev/null
GOOS=linux GOARCH=amd64 "$go" test -c -o "$tmp/bench.amd64" ./bench/
GOOS=linux GOARCH=arm64 "$go" test -c -o "$tmp/bench.arm64" ./bench/
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $("$go" version); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(qemu-aarch64 --version | head -1)"
for arch in amd64 arm64; do
  run=("$tmp/bench.$arch")
  [ "$arch" = arm64 ] && run=(qemu-aarch64 "$tmp/bench.$arch")
  echo "## $arch${run[1]:+ (under qemu-user)}"
  (cd bench && "${run[@]}" -test.run '^$' -test.bench "$filter" -test.benchmem -test.benchtime 1x -test.timeout 60m)
done
