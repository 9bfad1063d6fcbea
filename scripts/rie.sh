#!/usr/bin/env bash
# Installs (once) the pinned AWS Lambda Runtime Interface Emulator into
# .cache/bin and prints the binary's path. The upstream repository tags
# releases as vX.Y (not semver), so the Go module proxy only knows it by a
# pseudo-version; RIE_VERSION pins that (the newest commit the proxy served
# on 2026-10-30). Override RIE_VERSION to try another one.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version="${RIE_VERSION:-v0.0.0-20261030222936-bef5c4ba774d}"
bindir="$root/.cache/bin"
bin="$bindir/aws-lambda-rie"
stamp="$bindir/.aws-lambda-rie.version"
if [ ! -x "$bin" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$version" ]; then
  mkdir -p "$bindir"
  # `go install pkg@version` ignores the current module: go.mod is not touched.
  (cd "$bindir" && GOBIN="$bindir" GOWORK=off CGO_ENABLED=0 \
    go install "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@$version" >&2)
  echo "$version" > "$stamp"
fi
echo "$bin"
