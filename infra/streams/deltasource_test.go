package streams

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/scan"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/infra/awsclient"
	"github.com/tributary-io/tributary/infra/awstest"
	"github.com/tributary-io/tributary/infra/s3store"
)

// TestDeltaSourceOnS3: a Delta-source stream reads an s3:// bronze table
// into an s3:// silver table, its checkpoint on S3 too; a second run after
// a bronze append delivers only the new rows.
func TestDeltaSourceOnS3(t *testing.T) {
	ctx := context.Background()
	cfg := awstest.Config(t, awstest.Endpoint(t))
	client := awsclient.NewS3(cfg)
	bucket := fmt.Sprintf("delta-source-%d", time.Now().UnixNano()%1e9)
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	dir := t.TempDir()
	env := Env{AWS: &cfg, TempDir: t.TempDir()}
	bronzeRun := func(file, rows string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "in", file), []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
		opts, err := options.Parse(map[string]string{"cloudFiles.format": "json"}, options.Locations{StreamID: "bronze", Source: filepath.Join(dir, "in"),
			Table: "s3://" + bucket + "/bronze", CheckpointLocation: filepath.Join(dir, "bronze-cp"), SchemaLocation: filepath.Join(dir, "bronze-cp")})
		if err != nil {
			t.Fatal(err)
		}
		s, err := env.Open(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Discover(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Engine.RunAvailableNow(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	silverRun := func() int64 {
		t.Helper()
		opts, err := options.Parse(map[string]string{}, options.Locations{StreamID: "silver", Source: "s3://" + bucket + "/bronze",
			Table: "s3://" + bucket + "/silver", CheckpointLocation: "s3://" + bucket + "/silver/_checkpoints", SourceFormat: "delta"})
		if err != nil {
			t.Fatal(err)
		}
		s, err := env.Open(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sum, err := s.Engine.RunAvailableNow(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return sum.Rows()
	}
	bronzeRun("a.json", `{"id":1}`+"\n"+`{"id":2}`+"\n")
	if n := silverRun(); n != 2 {
		t.Fatalf("first silver run: %d rows, want 2", n)
	}
	bronzeRun("b.json", `{"id":3}`+"\n")
	if n := silverRun(); n != 1 {
		t.Fatalf("second silver run: %d rows, want 1 (only the new commit)", n)
	}
	store, err := s3store.New(client, bucket, "silver")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := delta.NewTable(store).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	col := snap.Schema().FieldIndex("id")
	if err := scan.Rows(ctx, snap, func(fr scan.FileRows) error {
		for _, r := range fr.Rows {
			ids = append(ids, fmt.Sprint(r[col]))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"1", "2", "3"}) {
		t.Fatalf("silver ids %v, want 1 2 3", ids)
	}
}
