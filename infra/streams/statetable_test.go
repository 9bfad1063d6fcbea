package streams

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tributary-io/tributary/infra/awstest"
	"github.com/tributary-io/tributary/infra/dynamostate"
)

// TestStateTableTakesTheStreamsFileStateOptions: with a DynamoDB state
// table the stream's cloudFiles.allowOverwrites and cloudFiles.maxFileAge
// reach the inbox store too (Env.openState), not only discovery. They
// matter where a file is claimed without its inbox record, as when the
// checkpoint's batch plans are registered again in a new state table: an
// overwritten file's newer version (allowOverwrites) must move to the
// later plan that ingested it, or the next listing finds it new and
// ingests it a second time; and a re-registered file's state is kept for
// maxFileAge (its expiry), as its registration's was.
func TestStateTableTakesTheStreamsFileStateOptions(t *testing.T) {
	ctx := context.Background()
	cfg := awstest.Config(t, awstest.Endpoint(t))
	db := dynamodb.NewFromConfig(cfg)
	suffix := time.Now().UnixNano() % 1e9
	first, second := fmt.Sprintf("state-a-%d", suffix), fmt.Sprintf("state-b-%d", suffix)
	for _, name := range []string{first, second} {
		if err := dynamostate.CreateTable(ctx, db, name); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	opts := parse(t, dir, "s1", map[string]string{
		"cloudFiles.allowOverwrites": "true",
		"cloudFiles.maxFileAge":      "14 days",
	})
	var logs strings.Builder
	run := func(table string, check func(s *Stream)) int64 {
		t.Helper()
		env := Env{AWS: &cfg, StateTable: table, Logger: slog.New(slog.NewTextHandler(&logs, nil)), TempDir: t.TempDir()}
		s, err := env.Open(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Discover(ctx); err != nil {
			t.Fatal(err)
		}
		sum, err := s.Engine.RunAvailableNow(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if check != nil {
			check(s)
		}
		return sum.Rows()
	}
	path := filepath.Join(dir, "in", "x.json")
	now := time.Now()
	write(t, path, `{"x":"v1"}`+"\n", now.Add(-time.Hour))
	if n := run(first, nil); n != 1 {
		t.Fatalf("first version: %d rows, want 1", n)
	}
	write(t, path, `{"x":"v2"}`+"\n"+`{"x":"v2"}`+"\n", now.Add(-time.Minute))
	if n := run(first, nil); n != 2 {
		t.Fatalf("overwritten version (allowOverwrites): %d rows, want 2", n)
	}
	// A new state table: the plans of batches 0 (v1) and 1 (v2) are
	// registered again in it.
	var rows []string
	n := run(second, func(s *Stream) {
		rows = streamRows(t, s)
		exp, err := s.State.(interface {
			ExpiresAt(ctx context.Context, stream, path string) (time.Time, error)
		}).ExpiresAt(ctx, "s1", "x.json")
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Until(exp); d <= 13*24*time.Hour || d > 14*24*time.Hour {
			t.Errorf("x.json's state in the new table expires at %v (in %v), want in 14 days (cloudFiles.maxFileAge)", exp, d)
		}
	})
	if !strings.Contains(logs.String(), "registering the files of its batch plans again") {
		t.Fatalf("no re-registration in the new state table:\n%s", logs.String())
	}
	if n != 0 {
		t.Errorf("run on the new state table ingested %d rows, want 0 (x.json's v2 is batch 1's)", n)
	}
	if strings.Join(rows, ",") != "v1,v2,v2" {
		t.Errorf("table rows %v, want [v1 v2 v2]", rows)
	}
}
