#!/usr/bin/env bash
# The `make localstack` suite; runs inside scripts/localstack.sh, which has
# set TRIBUTARY_TEST_ENDPOINT to a fresh LocalStack. Steps, each timed:
#   1. the AWS adapters' tests and the object store conformance suite
#      (core/objstore/objstoretest, through infra/s3store) on LocalStack S3,
#      SQS and DynamoDB (DynamoDB Local);
#   2. the e2e suite (tests/e2e): real S3->SQS (and S3->SNS->SQS,
#      S3->EventBridge->SQS) notifications into the three handlers run
#      in-process and under the Lambda Runtime Interface Emulator, the table
#      read back by delta-rs from LocalStack S3;
#   3. template.yaml deployed with `sam deploy` to LocalStack's CloudFormation
#      (scripts/localstack-deploy.sh).
# Tests that fail only because LocalStack 4.14 differs from S3 are skipped
# here by name (SKIP below) and run on moto in `make test`; localstack/README.md
# says why for each.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
: "${TRIBUTARY_TEST_ENDPOINT:?run me through scripts/localstack.sh}"
GO="${GO:-go}"

# LocalStack 4.14 compares StartAfter against URL-encoded keys and orders
# CommonPrefixes by them, so a non-ASCII key after StartAfter is dropped
# ("é" > "a" in S3's byte order, "%C3%A9" < "a").
SKIP_S3STORE='^TestConformance(WholeBucket)?$/^ListOrder$/^start_after|^TestLevelLister$'
# LocalStack 4.14 URL-encodes detail.object.key in S3's EventBridge events
# (moto and S3's documented examples send the key as it is).
# LocalStack's StartAfter comparison (above) also drops keys from the backfill's listing,
# which lists a source in key ranges, each from a StartAfter: the e2e
# inputs' keys with spaces, '+', '%', '?' or non-ASCII characters (their
# URL-encoded forms sort before the range's start) go missing, so the
# tests that count what a backfill lists fail.
# LocalStack's community edition has no Glue (501 on CreateDatabase): the
# two-stream stack registers its tables in the Glue catalog.
SKIP_E2E='^(TestEventBridgeNotifications|TestBackfillResumesAcrossInvocations|TestBackfillFindsDroppedEvents|TestNewStateTableIsAdopted|TestCost|TestTwoStreamsOneStack)$|^TestTemplateIAM$/^StreamsConfig:_two_streams'

failed=0
step() {
  local name=$1; shift
  local t0=$SECONDS
  echo "== $name"
  if "$@"; then
    echo "== $name: ok in $((SECONDS - t0)) s"
  else
    echo "== $name: FAILED after $((SECONDS - t0)) s"
    failed=1
  fi
}
step "adapters (awsclient, sqskick, dynamostate, streams) on LocalStack" \
  "$GO" test -count=1 -timeout 15m ./infra/awsclient/ ./infra/sqskick/ ./infra/dynamostate/ ./infra/streams/
step "s3store + objstoretest conformance on LocalStack S3" \
  "$GO" test -count=1 -timeout 15m -skip "$SKIP_S3STORE" ./infra/s3store/
step "e2e on LocalStack" \
  "$GO" test -count=1 -timeout 20m -skip "$SKIP_E2E" ./tests/e2e/
if [ -x scripts/localstack-deploy.sh ]; then
  step "template.yaml on LocalStack CloudFormation" scripts/localstack-deploy.sh
fi
exit "$failed"
