package refresh

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/core/state/memstate"
)

// fileState returns a state store holding two files of stream "s" (one
// committed) and one of stream "other".
func fileState(t *testing.T) *memstate.Store {
	t.Helper()
	ctx := context.Background()
	st := memstate.New()
	for _, strm := range []string{"s", "other"} {
		if _, err := st.Register(ctx, strm, []state.File{{Path: "a.json", Size: 1}, {Path: strm + ".json", Size: 1}}, state.RegisterOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Claim(ctx, "s", 0, []string{"a.json"}); err != nil {
		t.Fatal(err)
	}
	if err := st.MarkCommitted(ctx, "s", 0, time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	return st
}

// countEntries counts a stream's entries.
func countEntries(t *testing.T, st state.Store, stream string) int {
	t.Helper()
	n := 0
	for _, err := range st.Entries(context.Background(), stream) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// table creates a table with files adds committed by the streams' txns
// (appId -> version) and returns it.
func table(t *testing.T, conf map[string]string, files int, txns map[string]int64) *delta.Table {
	t.Helper()
	ctx := context.Background()
	tbl := delta.NewTable(memstore.New())
	p := delta.ProtocolFor(false, nil)
	if conf == nil {
		conf = map[string]string{}
	}
	acts := []delta.Action{{Protocol: &p}, {Metadata: &delta.Metadata{ID: "t", Format: delta.Format{Provider: "parquet"},
		SchemaString: `{"type":"struct","fields":[{"name":"a","type":"long","nullable":true,"metadata":{}}]}`, Configuration: conf}}}
	for i := range files {
		acts = append(acts, delta.Action{Add: &delta.Add{Path: fmt.Sprintf("f%d.parquet", i), Size: 10, DataChange: true}})
	}
	for app, v := range txns {
		acts = append(acts, delta.Action{Txn: &delta.Txn{AppID: app, Version: v}})
	}
	if _, err := tbl.Commit(ctx, -1, acts); err != nil {
		t.Fatal(err)
	}
	return tbl
}

func checkpoint(t *testing.T, keys ...string) *memstore.Store {
	t.Helper()
	st := memstore.New()
	for _, k := range keys {
		if err := st.Put(context.Background(), k, strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func listKeys(t *testing.T, st objstore.Store) []string {
	var out []string
	for info, err := range st.List(context.Background(), objstore.ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, info.Key)
	}
	return out
}

func TestReset(t *testing.T) {
	ctx := context.Background()
	cpKeys := []string{"metadata", "source.json", "offsets/00000000000000000000.json", "offsets/00000000000000000001.json", "_schemas/0", "state.db"}
	tests := []struct {
		name       string
		truncate   bool
		conf       map[string]string
		files      int
		txns       map[string]int64
		noTable    bool
		wantApps   []string
		wantFiles  int // live files after
		wantErr    error
		wantCommit bool
	}{
		{name: "full refresh restarts every writer", truncate: true, files: 3, txns: map[string]int64{"s": 1, "other": 4},
			wantApps: []string{"other", "s"}, wantCommit: true},
		{name: "checkpoint reset keeps the rows", files: 3, txns: map[string]int64{"s": 1, "other": 4},
			wantApps: []string{"s"}, wantFiles: 3, wantCommit: true},
		{name: "no table yet", truncate: true, noTable: true},
		{name: "append-only refused", truncate: true, files: 1, conf: map[string]string{delta.PropAppendOnly: "true"}, txns: map[string]int64{"s": 0},
			wantErr: ErrAppendOnly, wantFiles: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tbl *delta.Table
			if tc.noTable {
				tbl = delta.NewTable(memstore.New())
			} else {
				tbl = table(t, tc.conf, tc.files, tc.txns)
			}
			cp := checkpoint(t, cpKeys...)
			schemas := checkpoint(t, "_schemas/0", "_schemas/1", "other")
			fst := fileState(t)
			res, err := Reset(ctx, Request{Table: tbl, Checkpoint: cp, SchemaStore: schemas, State: fst, StreamID: "s", AppID: "s",
				Truncate: tc.truncate, Keep: []string{"metadata", "state.db"}})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				if got := listKeys(t, cp); len(got) != len(cpKeys) {
					t.Fatalf("checkpoint changed on error: %v", got)
				}
				if n := countEntries(t, fst, "s"); n != 2 {
					t.Fatalf("file state changed on error: %d entries", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// The stream's file state is forgotten, another stream's kept.
			if n := countEntries(t, fst, "s"); n != 0 || res.StateEntries != 2 {
				t.Fatalf("file state after reset: %d entries left, %d dropped", n, res.StateEntries)
			}
			if _, err := fst.Get(ctx, "s", "a.json"); !errors.Is(err, state.ErrNotFound) {
				t.Fatalf("Get after reset: %v", err)
			}
			if n := countEntries(t, fst, "other"); n != 2 {
				t.Fatalf("other stream's file state after reset: %d entries", n)
			}
			if got := listKeys(t, cp); !slices.Equal(got, []string{"metadata", "state.db"}) {
				t.Fatalf("checkpoint after reset: %v", got)
			}
			if got := listKeys(t, schemas); !slices.Equal(got, []string{"other"}) {
				t.Fatalf("schema location after reset: %v", got)
			}
			if !tc.wantCommit {
				if res.Version != -1 {
					t.Fatalf("committed %d", res.Version)
				}
				return
			}
			snap, err := tbl.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if snap.Version != 1 || res.Version != 1 || snap.NumFiles() != tc.wantFiles || !slices.Equal(res.AppIDs, tc.wantApps) {
				t.Fatalf("version %d/%d, %d files, apps %v", snap.Version, res.Version, snap.NumFiles(), res.AppIDs)
			}
			for app, v := range tc.txns {
				got, _ := snap.TxnVersion(app)
				want := v
				if slices.Contains(tc.wantApps, app) {
					want = -1
				}
				if got != want {
					t.Fatalf("txn %s = %d, want %d", app, got, want)
				}
			}
			if Refreshed(snap, "s") != tc.truncate {
				t.Fatalf("Refreshed = %v", !tc.truncate)
			}
			// Idempotent: a second reset commits again and changes nothing else.
			if _, err := Reset(ctx, Request{Table: tbl, Checkpoint: cp, StreamID: "s", AppID: "s", Truncate: tc.truncate}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
