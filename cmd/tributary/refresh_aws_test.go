package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/awsclient"
	"github.com/tributary-io/tributary/infra/awstest"
	"github.com/tributary-io/tributary/infra/dynamostate"
)

func TestMain(m *testing.M) { awstest.Main(m) }

// TestRefreshAWS runs `tributary refresh` and `reset-checkpoint` on a stream
// whose table and checkpoint are on S3 and whose file state is in DynamoDB
// (TRIBUTARY_STATE_TABLE), on the emulator: the refresh truncates the table
// in one commit, drops the stream's entries and ingests every file once
// again; another stream's entries in the same state table are kept.
func TestRefreshAWS(t *testing.T) {
	endpoint := awstest.Endpoint(t)
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
		"AWS_REGION": "us-east-1", awsclient.EnvEndpoint: endpoint,
	} {
		t.Setenv(k, v)
	}
	ctx := t.Context()
	cfg := awstest.Config(t, endpoint)
	suffix := time.Now().UnixNano()
	bucket := fmt.Sprintf("refresh-%d", suffix)
	if _, err := awsclient.NewS3(cfg).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	ddb := dynamodb.NewFromConfig(cfg)
	tableName := fmt.Sprintf("refresh-state-%d", suffix)
	if err := dynamostate.CreateTable(ctx, ddb, tableName); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TRIBUTARY_STATE_TABLE", tableName)
	fst := dynamostate.New(ddb, tableName)
	// Another stream's entry in the same state table.
	if _, err := fst.Register(ctx, "neighbour", []state.File{{Path: "a.json", Size: 1}}, state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	entries := func(stream string) map[string]state.Entry {
		t.Helper()
		out := map[string]state.Entry{}
		for e, err := range fst.Entries(ctx, stream) {
			if err != nil {
				t.Fatal(err)
			}
			out[e.Path] = e
		}
		return out
	}

	c := newCLI(t)
	c.table = "s3://" + bucket + "/tables/orders"
	c.cp = "s3://" + bucket + "/checkpoints/orders"
	c.extra = []string{"--stream", "orders"}
	for i := range 3 {
		c.file(fmt.Sprintf("%d.json", i), fmt.Sprintf(`{"id":%d}`+"\n", i))
	}
	if _, errs, code := c.run("cloudFiles.maxFilesPerTrigger=1"); code != 0 {
		t.Fatal(errs)
	}
	if d := c.describe(); d.NumRecords != 3 {
		t.Fatalf("before: %+v", d)
	}
	if e := entries("orders"); len(e) != 3 || e["2.json"].BatchID != 2 {
		t.Fatalf("state before: %+v", e)
	}

	args := []string{"refresh", "--source", c.src, "--table", c.table, "--checkpoint", c.cp, "--stream", "orders",
		"--option", "cloudFiles.format=json", "--option", "cloudFiles.inferColumnTypes=true"}
	out, errs, code := c.exec(args...)
	if code != 0 {
		t.Fatalf("refresh: %d %q %q", code, out, errs)
	}
	if !strings.Contains(out, "removes all 3 files") || !strings.Contains(out, "3 file entries dropped") || !strings.Contains(out, "ingested 3 rows") {
		t.Fatalf("refresh output: %q %q", out, errs)
	}
	// Every file once: the table holds 3 rows, not 6, written by batch 0
	// of the new checkpoint.
	if d := c.describe(); d.NumRecords != 3 {
		t.Fatalf("after refresh: %+v", d)
	}
	if got := strings.Join(historyOps(t, c), ","); got != "STREAMING UPDATE,STREAMING UPDATE,STREAMING UPDATE,TRUNCATE,STREAMING UPDATE" {
		t.Fatalf("history: %s", got)
	}
	e := entries("orders")
	if len(e) != 3 {
		t.Fatalf("state after refresh: %+v", e)
	}
	for p, en := range e {
		if en.State != state.Committed || en.BatchID != 0 {
			t.Fatalf("state of %s after refresh: %+v, want committed in batch 0", p, en)
		}
	}
	if n := len(entries("neighbour")); n != 1 {
		t.Fatalf("the other stream's state: %d entries", n)
	}
	if out, _, code := c.run(); code != 0 || !strings.Contains(out, "nothing new") {
		t.Fatalf("run after refresh: %d %q", code, out)
	}

	// reset-checkpoint --no-run: the rows stay, the checkpoint and the
	// stream's entries go; the next run ingests every file again.
	args[0] = "reset-checkpoint"
	out, errs, code = c.exec(append(args, "--no-run")...)
	if code != 0 || !strings.Contains(out, "3 file entries dropped") || !strings.Contains(errs, "written twice") {
		t.Fatalf("reset-checkpoint: %d %q %q", code, out, errs)
	}
	if n := len(entries("orders")); n != 0 {
		t.Fatalf("state after reset-checkpoint: %d entries", n)
	}
	if _, errs, code := c.run(); code != 0 {
		t.Fatal(errs)
	}
	if d := c.describe(); d.NumRecords != 6 {
		t.Fatalf("after reset-checkpoint and a run: %+v", d)
	}

	// An S3 checkpoint without a state table is refused before anything
	// is written.
	t.Setenv("TRIBUTARY_STATE_TABLE", "")
	args[0] = "refresh"
	if out, errs, code := c.exec(args...); code == 0 || !strings.Contains(errs, "TRIBUTARY_STATE_TABLE") {
		t.Fatalf("refresh without a state table: %d %q %q", code, out, errs)
	}
	if d := c.describe(); d.NumRecords != 6 {
		t.Fatalf("after the refused refresh: %+v", d)
	}
}
