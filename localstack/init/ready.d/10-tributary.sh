#!/usr/bin/env bash
# LocalStack ready hook: creates the resources of one Tributary stream, with
# the same names, key schema and wiring as template.yaml. Idempotent: safe to
# run again against a running LocalStack (e.g. with persistence on).
set -euo pipefail

stream="${TRIBUTARY_STREAM_ID:-demo}"
bucket="${TRIBUTARY_SOURCE_BUCKET:-tributary-demo-source}"
prefix="${TRIBUTARY_SOURCE_PREFIX:-incoming/}"
table_bucket="${TRIBUTARY_TABLE_BUCKET:-tributary-demo-table}"
state_table="tributary-${stream}-state"
region="${AWS_DEFAULT_REGION:-us-east-1}"

log() { echo "tributary-init: $*"; }

make_bucket() {
  local name="$1"
  if awslocal s3api head-bucket --bucket "$name" >/dev/null 2>&1; then
    log "bucket $name exists"
  elif [ "$region" = us-east-1 ]; then
    awslocal s3api create-bucket --bucket "$name" >/dev/null
  else
    awslocal s3api create-bucket --bucket "$name" \
      --create-bucket-configuration "LocationConstraint=$region" >/dev/null
  fi
}

queue_arn() {
  awslocal sqs get-queue-attributes --queue-url "$1" \
    --attribute-names QueueArn --query Attributes.QueueArn --output text
}

# make_queue NAME ATTRIBUTES_JSON -> prints the queue URL
make_queue() {
  awslocal sqs create-queue --queue-name "$1" --attributes "$2" \
    --query QueueUrl --output text
}

redrive() { # redrive DLQ_ARN -> RedrivePolicy attribute value (a JSON string)
  printf '{\\"deadLetterTargetArn\\":\\"%s\\",\\"maxReceiveCount\\":\\"5\\"}' "$1"
}

# --- buckets -----------------------------------------------------------------
make_bucket "$bucket"
make_bucket "$table_bucket"

# --- events queue + DLQ --------------------------------------------------------
events_dlq_url=$(make_queue "tributary-${stream}-events-dlq" '{"MessageRetentionPeriod":"1209600"}')
events_dlq_arn=$(queue_arn "$events_dlq_url")
events_url=$(make_queue "tributary-${stream}-events" \
  "{\"VisibilityTimeout\":\"360\",\"MessageRetentionPeriod\":\"1209600\",\"RedrivePolicy\":\"$(redrive "$events_dlq_arn")\"}")
events_arn=$(queue_arn "$events_url")

# --- kick FIFO queue + DLQ (one message group per stream) ----------------------
kick_dlq_url=$(make_queue "tributary-${stream}-kick-dlq.fifo" '{"FifoQueue":"true","MessageRetentionPeriod":"1209600"}')
kick_dlq_arn=$(queue_arn "$kick_dlq_url")
kick_url=$(make_queue "tributary-${stream}-kick.fifo" \
  "{\"FifoQueue\":\"true\",\"ContentBasedDeduplication\":\"false\",\"VisibilityTimeout\":\"960\",\"MessageRetentionPeriod\":\"345600\",\"RedrivePolicy\":\"$(redrive "$kick_dlq_arn")\"}")

# --- queue policy: S3 may send notifications from this bucket only -------------
policy=$(printf '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"s3.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"%s","Condition":{"ArnLike":{"aws:SourceArn":"arn:aws:s3:::%s"}}}]}' "$events_arn" "$bucket")
awslocal sqs set-queue-attributes --queue-url "$events_url" \
  --attributes "{\"Policy\":\"${policy//\"/\\\"}\"}"

# --- state table (same schema as template.yaml) --------------------------------
if awslocal dynamodb describe-table --table-name "$state_table" >/dev/null 2>&1; then
  log "table $state_table exists"
else
  awslocal dynamodb create-table --table-name "$state_table" \
    --billing-mode PAY_PER_REQUEST \
    --attribute-definitions \
      AttributeName=pk,AttributeType=S AttributeName=sk,AttributeType=S \
    --key-schema AttributeName=pk,KeyType=HASH AttributeName=sk,KeyType=RANGE \
    >/dev/null
  awslocal dynamodb wait table-exists --table-name "$state_table"
  awslocal dynamodb update-time-to-live --table-name "$state_table" \
    --time-to-live-specification Enabled=true,AttributeName=expires_at >/dev/null
fi

# --- bucket notification: ObjectCreated under the prefix -> events queue -------
filter=""
if [ -n "$prefix" ]; then
  filter=",\"Filter\":{\"Key\":{\"FilterRules\":[{\"Name\":\"prefix\",\"Value\":\"$prefix\"}]}}"
fi
awslocal s3api put-bucket-notification-configuration --bucket "$bucket" \
  --notification-configuration "{\"QueueConfigurations\":[{\"Id\":\"tributary-${stream}\",\"QueueArn\":\"$events_arn\",\"Events\":[\"s3:ObjectCreated:*\"]$filter}]}"

# --- self-check: conditional writes, which the Delta commit relies on ----------
probe="_tributary/probe-$$"
awslocal s3api put-object --bucket "$table_bucket" --key "$probe" --if-none-match '*' >/dev/null
if awslocal s3api put-object --bucket "$table_bucket" --key "$probe" --if-none-match '*' >/dev/null 2>&1; then
  log "WARNING: second PutObject with If-None-Match: * succeeded; this LocalStack does not honour conditional writes"
else
  log "conditional writes: OK (second If-None-Match put refused)"
fi
awslocal s3api delete-object --bucket "$table_bucket" --key "$probe" >/dev/null

log "ready"
cat <<OUT
export AWS_ENDPOINT_URL=http://127.0.0.1:4566 AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=$region
export TRIBUTARY_STREAM_ID=$stream
export TRIBUTARY_SOURCE_BUCKET=$bucket TRIBUTARY_SOURCE_PREFIX=$prefix
export TRIBUTARY_TABLE_BUCKET=$table_bucket TRIBUTARY_TABLE_PREFIX=tables/$stream/
export TRIBUTARY_STATE_TABLE=$state_table
export TRIBUTARY_EVENTS_QUEUE_URL=$events_url
export TRIBUTARY_KICK_QUEUE_URL=$kick_url
OUT
