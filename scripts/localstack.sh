#!/usr/bin/env bash
# Runs a command against LocalStack in host mode (no Docker):
#   scripts/localstack.sh CMD [ARGS...]
# Prepares the pinned environment (scripts/localstack-env.sh), starts
# LocalStack bound to 127.0.0.1 on a free port, waits until S3, SQS and
# DynamoDB answer, runs CMD with TRIBUTARY_TEST_ENDPOINT (and the AWS_*
# test credentials) set, and stops LocalStack afterwards, whatever CMD did.
# LocalStack's log goes to .cache/localstack-fs/localstack.log.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -eq 0 ]; then
  echo "usage: $0 CMD [ARGS...]" >&2
  exit 2
fi
env_lines=$("$root/scripts/localstack-env.sh")
py=$(sed -n 's/^LOCALSTACK_PYTHON=//p' <<<"$env_lines")
fsroot=$(sed -n 's/^FILESYSTEM_ROOT=//p' <<<"$env_lines")
port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
endpoint="http://127.0.0.1:$port"
logf="$fsroot/localstack.log"
mkdir -p "$fsroot"
# State lives in memory and in FILESYSTEM_ROOT/tmp: start from a clean one.
rm -rf "$fsroot/tmp" "$fsroot/var/lib/localstack/tmp"

start=$(date +%s)
# OVERRIDE_IN_DOCKER=0: this machine may itself be a container; LocalStack must
# still use its host-mode directories under FILESYSTEM_ROOT.
# DNS_ADDRESS=0: no DNS server on port 53. SQS_ENDPOINT_STRATEGY=off: queue
# URLs http://127.0.0.1:PORT/<account>/<name>, the path shape of AWS and moto
# (the default names *.localhost.localstack.cloud need DNS).
env -u AWS_ENDPOINT_URL \
  OVERRIDE_IN_DOCKER=0 FILESYSTEM_ROOT="$fsroot" \
  GATEWAY_LISTEN="127.0.0.1:$port" LOCALSTACK_HOST="127.0.0.1:$port" \
  DNS_ADDRESS=0 SQS_ENDPOINT_STRATEGY=off DISABLE_EVENTS=1 SKIP_SSL_CERT_DOWNLOAD=1 \
  EAGER_SERVICE_LOADING=1 SERVICES="${TRIBUTARY_LOCALSTACK_SERVICES:-s3,sqs,dynamodb,sts,sns,events,cloudformation,lambda,iam,ssm,logs,cloudwatch,kms,scheduler}" \
  "$py" -m localstack.runtime.main >"$logf" 2>&1 &
pid=$!
stop() {
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  # DynamoDB Local is LocalStack's child; make sure it went with it.
  pkill -P "$pid" 2>/dev/null || true
}
trap stop EXIT INT TERM

export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1
ready=""
for _ in $(seq 240); do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "localstack: exited during start; see $logf" >&2
    tail -20 "$logf" >&2
    exit 1
  fi
  if "$py" - "$endpoint" <<'PY' 2>/dev/null; then
import sys, boto3
e = sys.argv[1]
for svc, call in (("s3", "list_buckets"), ("sqs", "list_queues"), ("dynamodb", "list_tables")):
    getattr(boto3.client(svc, endpoint_url=e), call)()
PY
    ready=1
    break
  fi
  sleep 0.5
done
if [ -z "$ready" ]; then
  echo "localstack: S3/SQS/DynamoDB not answering on $endpoint after 120 s; see $logf" >&2
  exit 1
fi
echo "localstack: ready on $endpoint in $(( $(date +%s) - start )) s (log: $logf)" >&2
export TRIBUTARY_TEST_ENDPOINT="$endpoint"
set +e
"$@"
rc=$?
set -e
echo "localstack: command exited $rc after $(( $(date +%s) - start )) s in total" >&2
exit "$rc"
