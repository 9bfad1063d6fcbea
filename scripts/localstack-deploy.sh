#!/usr/bin/env bash
# Deploys template.yaml to LocalStack's CloudFormation with `sam deploy`
# (pinned in tests/requirements.txt; boto3 honours AWS_ENDPOINT_URL, so plain
# sam works and samlocal is not needed). Runs inside scripts/localstack.sh.
#   1. The whole template, packaged from `make lambdas` (dist/*/bootstrap).
#      LocalStack host mode cannot create the AWS::Lambda::Function resources
#      (see localstack/README.md); the step passes only if every CREATE_FAILED
#      resource is a Lambda function failing for that reason, and prints them.
#   2. The template without its functions and what depends on them
#      (localstack/strip_functions.py) must reach CREATE_COMPLETE, and the
#      deployed wiring is checked: an object put under the source prefix
#      arrives as an S3 ObjectCreated event on the stack's events queue (one
#      outside the prefix does not), the state table has the code's key schema,
#      no secondary index and TTL, and the kick queue is FIFO with a redrive
#      policy.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
: "${TRIBUTARY_TEST_ENDPOINT:?run me through scripts/localstack.sh}"
export AWS_ENDPOINT_URL="$TRIBUTARY_TEST_ENDPOINT" SAM_CLI_TELEMETRY=0
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1
bin=$("$root/scripts/pyenv.sh")
lspy=$(sed -n 's/^LOCALSTACK_PYTHON=//p' <<<"$("$root/scripts/localstack-env.sh")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make -s lambdas >/dev/null
mkdir -p "$work/full"
cp template.yaml "$work/full/"
cp -r dist "$work/full/"

deploy() { # deploy DIR TEMPLATE STACK STREAM
  (cd "$1" && "$bin/sam" deploy --template-file "$2" --stack-name "$3" --resolve-s3 \
    --capabilities CAPABILITY_IAM CAPABILITY_NAMED_IAM --no-confirm-changeset \
    --no-progressbar --disable-rollback \
    --parameter-overrides "StreamId=$4" "SourceBucketName=tributary-$4-source" \
      SourcePrefix=incoming/ TablePrefix=tables/t Format=json)
}

echo "-- 1. sam deploy template.yaml (stack tributary-full)"
if deploy "$work/full" template.yaml tributary-full full >"$work/full.log" 2>&1; then
  echo "the whole template deployed on LocalStack (functions included)"
else
  "$lspy" - <<'PY'
import sys, boto3
cf = boto3.client("cloudformation")
failed = [e for e in cf.describe_stack_events(StackName="tributary-full")["StackEvents"]
          if e["ResourceStatus"] == "CREATE_FAILED" and e["ResourceType"] != "AWS::CloudFormation::Stack"]
runtime = [e for e in failed if e["ResourceType"] == "AWS::Lambda::Function"
           and "lambda-runtime" in e.get("ResourceStatusReason", "")]
ok = bool(runtime)
for e in failed:
    reason = e.get("ResourceStatusReason", "")
    print(f"CREATE_FAILED {e['ResourceType']} {e['LogicalResourceId']}: {reason or '(no reason: cancelled with the stack)'}")
    # Resources CloudFormation cancels after the first failure have no reason.
    if reason and e not in runtime:
        ok = False
if not ok:
    sys.exit("unexpected failure deploying template.yaml (only the Lambda functions are expected to fail)")
print("as expected: only the Lambda functions fail (LocalStack host mode cannot install its Lambda runtime)")
PY
fi

echo "-- 2. sam deploy template.yaml without the functions (stack tributary-nofn)"
mkdir -p "$work/nofn"
"$lspy" localstack/strip_functions.py template.yaml "$work/nofn/template.json"
if ! deploy "$work/nofn" template.json tributary-nofn nofn >"$work/nofn.log" 2>&1; then
  cat "$work/nofn.log"
  exit 1
fi
"$lspy" - <<'PY'
import json, sys, time, boto3
cf, s3, sqs, ddb = (boto3.client(s) for s in ("cloudformation", "s3", "sqs", "dynamodb"))
st = cf.describe_stacks(StackName="tributary-nofn")["Stacks"][0]["StackStatus"]
assert st == "CREATE_COMPLETE", st
res = {r["LogicalResourceId"]: r["PhysicalResourceId"]
       for r in cf.describe_stack_resources(StackName="tributary-nofn")["StackResources"]}
print(f"{st}: {len(res)} resources")
bucket, events, kick, table = res["SourceBucket"], res["EventsQueue"], res["KickQueue"], res["StateTable"]
def url(q):  # CloudFormation gives queue URLs for AWS::SQS::Queue
    return q if q.startswith("http") else sqs.get_queue_url(QueueName=q)["QueueUrl"]
events, kick = url(events), url(kick)
# Drain the s3:TestEvent sent when the notification was configured.
seen = []
def drain(wait):
    out = []
    while True:
        m = sqs.receive_message(QueueUrl=events, MaxNumberOfMessages=10, WaitTimeSeconds=wait).get("Messages", [])
        if not m:
            return out
        for x in m:
            out.append(json.loads(x["Body"]))
            sqs.delete_message(QueueUrl=events, ReceiptHandle=x["ReceiptHandle"])
drain(1)
s3.put_object(Bucket=bucket, Key="incoming/a b.json", Body=b'{"x":1}\n')
s3.put_object(Bucket=bucket, Key="elsewhere/c.json", Body=b'{"x":2}\n')
got = drain(2)
keys = [r["s3"]["object"]["key"] for b in got for r in b.get("Records", []) if r["eventName"].startswith("ObjectCreated")]
assert keys in (["incoming/a+b.json"], ["incoming/a%20b.json"]), f"events queue got {got}"
print(f"S3 -> SQS notification through the deployed bucket: {keys} (nothing for elsewhere/)")
d = ddb.describe_table(TableName=table)["Table"]
ks = sorted((k["AttributeName"], k["KeyType"]) for k in d["KeySchema"])
assert ks == [("pk", "HASH"), ("sk", "RANGE")], ks
gsis = [g["IndexName"] for g in d.get("GlobalSecondaryIndexes", [])]
assert not gsis, f"the state table has no secondary index (pending files wait in the checkpoint's inbox), got {gsis}"
ttl = ddb.describe_time_to_live(TableName=table)["TimeToLiveDescription"]
assert ttl.get("AttributeName") == "expires_at", ttl
print(f"state table {table}: pk/sk, no secondary index, TTL expires_at")
a = sqs.get_queue_attributes(QueueUrl=kick, AttributeNames=["All"])["Attributes"]
assert a.get("FifoQueue") == "true" and "RedrivePolicy" in a, a
print("kick queue: FIFO with redrive policy")
PY
