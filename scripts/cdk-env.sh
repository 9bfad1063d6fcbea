#!/usr/bin/env bash
# Prepares what the CDK construct library (cdk/, its own Go module) needs to
# synthesise, and prints the jsii package cache directory.
#   scripts/cdk-env.sh --cli   also installs the pinned AWS CDK CLI (npm
#                              package aws-cdk, no dependencies) under
#                              .cache/cdk-cli and prints its `cdk` path instead.
#
# The CDK's Node.js side needs no npm install: jsii-runtime-go embeds the
# @jsii/runtime JavaScript, and github.com/aws/aws-cdk-go/awscdk/v2 embeds
# aws-cdk-lib itself (jsii/aws-cdk-lib-<version>.tgz, 38 MB), as do the
# constructs-go and cdklabs asset modules for their packages. All are pinned
# by cdk/go.sum (aws-cdk-lib 2.276.0, constructs 10.8.1, jsii runtime
# 1.142.0). What is left is a Node.js runtime to run them: node >= 20 from
# the machine (jsii warns that 20 is past its tested range; it works, and
# JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION silences the banner).
#
# The jsii kernel unpacks each package tarball once into
# JSII_RUNTIME_PACKAGE_CACHE_ROOT (default here: .cache/jsii, ~210 MB) and
# reuses it across runs; without the cache every synthesis unpacks the
# 38 MB aws-cdk-lib again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null 2>&1; then
  echo "cdk-env: node not found: the jsii runtime of the Go CDK needs Node.js >= 20 (apt-get install nodejs)" >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "cdk-env: node $(node --version) is too old: the jsii runtime needs Node.js >= 20" >&2
  exit 1
fi
# The CDK CLI (cdk synth/deploy of the Go app), pinned; it reads the cloud
# assembly the Go app writes, so it must be at least as new as its schema.
cli_version=2.1148.1
if [ "${1:-}" = "--cli" ]; then
  cli="$root/.cache/cdk-cli"
  if [ "$(node -p "try{require('$cli/node_modules/aws-cdk/package.json').version}catch(e){''}")" != "$cli_version" ]; then
    npm install --silent --no-audit --no-fund --ignore-scripts --prefix "$cli" "aws-cdk@$cli_version" >&2
  fi
  echo "$cli/node_modules/.bin/cdk"
  exit 0
fi
cache="${JSII_RUNTIME_PACKAGE_CACHE_ROOT:-$root/.cache/jsii}"
mkdir -p "$cache"
# The Go modules (with the embedded JavaScript), as go.sum pins them.
(cd "$root/cdk" && "${GO:-go}" mod download) >&2
echo "$cache"
