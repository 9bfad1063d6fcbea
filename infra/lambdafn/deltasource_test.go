package lambdafn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/scan"
	"github.com/tributary-io/tributary/core/options"
	tevents "github.com/tributary-io/tributary/events"
	"github.com/tributary-io/tributary/infra/localfs"
)

// kicks records the kicks the functions send.
type kicks struct{ got []tevents.Kick }

func (k *kicks) Kick(_ context.Context, kk tevents.Kick) error {
	k.got = append(k.got, kk)
	return nil
}

func s3Event(bucket, key string) string {
	return fmt.Sprintf(`{"Records":[{"eventVersion":"2.1","eventSource":"aws:s3","awsRegion":"us-east-1","eventTime":"2024-06-03T09:41:27.512Z","eventName":"ObjectCreated:Put","s3":{"bucket":{"name":%q},"object":{"key":%q,"size":10,"eTag":"e"}}}]}`, bucket, key)
}

// A Delta-source stream in the functions: an S3 event for a new commit of
// the source's _delta_log/ kicks the commit function (data files and
// checkpoints do not); the backfill schedule kicks it too; the commit
// function runs it like any stream.
func TestDeltaSourceStreamInTheFunctions(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()

	// Events: routed by the source's s3:// location.
	remote, err := options.Parse(map[string]string{}, options.Locations{StreamID: "silver", Source: "s3://lake/bronze/", Table: "s3://lake/silver",
		CheckpointLocation: "s3://lake/silver/_checkpoints", SourceFormat: "delta"})
	if err != nil {
		t.Fatal(err)
	}
	k := &kicks{}
	app := &App{Config: &options.Config{Streams: []*options.Stream{remote}}, Env: runtimeEnv(), Logger: logger, Kicker: k}
	var recs []events.SQSMessage
	for i, key := range []string{"bronze/_delta_log/00000000000000000003.json", "bronze/part-0001.snappy.parquet",
		"bronze/_delta_log/00000000000000000003.checkpoint.parquet", "bronze/_delta_log/_last_checkpoint"} {
		recs = append(recs, events.SQSMessage{MessageId: fmt.Sprint(i), Body: s3Event("lake", key)})
	}
	resp, res := app.discover(ctx, events.SQSEvent{Records: recs})
	if len(resp.BatchItemFailures) != 0 || res.Ignored != 3 || len(k.got) != 1 || k.got[0].Stream != "silver" || k.got[0].Reason != tevents.ReasonDiscovered {
		t.Fatalf("discovery: failures %v, result %+v, kicks %+v; want one kick for the commit file, 3 ignored", resp.BatchItemFailures, res, k.got)
	}

	// Commit and backfill on a local bronze table.
	dir := t.TempDir()
	bronzeSrc := filepath.Join(dir, "in")
	os.MkdirAll(bronzeSrc, 0o755)
	os.WriteFile(filepath.Join(bronzeSrc, "a.json"), []byte(`{"id":1}`+"\n"+`{"id":2}`+"\n"), 0o644)
	bronze, err := options.Parse(map[string]string{"cloudFiles.format": "json", "cloudFiles.useNotifications": "true"}, options.Locations{StreamID: "bronze", Source: bronzeSrc,
		Table: filepath.Join(dir, "bronze"), CheckpointLocation: filepath.Join(dir, "bronze", "_cp"), SchemaLocation: filepath.Join(dir, "bronze", "_cp")})
	if err != nil {
		t.Fatal(err)
	}
	silver, err := options.Parse(map[string]string{}, options.Locations{StreamID: "silver", Source: filepath.Join(dir, "bronze"),
		Table: filepath.Join(dir, "silver"), CheckpointLocation: filepath.Join(dir, "silver", "_checkpoints"), SourceFormat: "delta"})
	if err != nil {
		t.Fatal(err)
	}
	fenv := runtimeEnv()
	fenv.Logger, fenv.TempDir = logger, t.TempDir()
	k = &kicks{}
	app = &App{Config: &options.Config{Streams: []*options.Stream{bronze, silver}}, Env: fenv, Logger: logger, Kicker: k}
	bs, err := app.stream(ctx, "bronze")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bs.Discover(ctx); err != nil { // what the events would register
		t.Fatal(err)
	}
	// The bronze commit kicks the silver stream (its table sends no events).
	if cresp, err := app.HandleCommit(ctx, events.SQSEvent{Records: []events.SQSMessage{{MessageId: "b", Body: `{"stream":"bronze","reason":"discovered","at":"2025-01-01T00:00:00Z"}`}}}); err != nil || len(cresp.BatchItemFailures) != 0 {
		t.Fatalf("bronze commit: %+v %v", cresp, err)
	}
	if len(k.got) != 1 || k.got[0].Stream != "silver" || k.got[0].Reason != tevents.ReasonUpstream {
		t.Fatalf("after the bronze commit: kicks %+v, want one upstream kick of silver", k.got)
	}
	k.got = nil
	if _, err := app.HandleBackfill(ctx, nil); err != nil || !slices.ContainsFunc(k.got, func(kk tevents.Kick) bool {
		return kk.Stream == "silver" && kk.Reason == tevents.ReasonBackfill
	}) {
		t.Fatalf("backfill: %v, kicks %+v; want a backfill kick of silver", err, k.got)
	}
	cresp, err := app.HandleCommit(ctx, events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m", Body: `{"stream":"silver","reason":"discovered","at":"2025-01-01T00:00:00Z"}`}}})
	if err != nil || len(cresp.BatchItemFailures) != 0 {
		t.Fatalf("commit: %+v %v", cresp, err)
	}
	st, _ := localfs.New(filepath.Join(dir, "silver"))
	snap, err := delta.NewTable(st).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	if err := scan.Rows(ctx, snap, func(fr scan.FileRows) error {
		for _, r := range fr.Rows {
			ids = append(ids, fmt.Sprint(r[snap.Schema().FieldIndex("id")]))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"1", "2"}) {
		t.Fatalf("silver ids %v, want 1 2", ids)
	}
}

// A Delta-source stream of the streams document may read a table of the
// stack (under TablePrefix: bronze -> silver) or a table under
// SourcePrefix; anywhere else is outside the grant.
func TestDeltaSourceWithinGrant(t *testing.T) {
	const b = "s3://landing-bucket/"
	stream := func(id, src, table string) string {
		cp := table + "/_tributary/checkpoint/"
		return `{"id":"` + id + `","format":"delta","source":"` + src + `","table":"` + table + `","checkpointLocation":"` + cp + `","options":{}}`
	}
	for _, tc := range []struct {
		src  string
		fail bool
	}{{b + "tables/events/bronze", false}, {b + "incoming/bronze", false}, {b + "other/bronze", true}} {
		doc := `{"streams":[` + stream("a", tc.src, b+"tables/events/silver") + `]}`
		_, err := LoadConfigFrom(templateEnv(map[string]string{EnvConfig: doc, EnvAlarmStreams: "a"}))
		if tc.fail != errors.Is(err, ErrNotGranted) || !tc.fail && err != nil {
			t.Errorf("Delta source %s: %v", tc.src, err)
		}
	}
}
