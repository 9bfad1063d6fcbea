package batchplan

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/state"
)

func TestSelectFiles(t *testing.T) {
	pending := []state.Entry{
		{File: state.File{Path: "a", Size: 100}},
		{File: state.File{Path: "b", Size: 300}},
		{File: state.File{Path: "c", Size: 50}},
		{File: state.File{Path: "d", Size: 1000}},
	}
	tests := []struct {
		name string
		lim  Limits
		want int
	}{
		{"no limits", Limits{}, 4},
		{"files", Limits{MaxFiles: 2}, 2},
		{"bytes soft: the crossing file is taken", Limits{MaxBytes: 150}, 2},
		{"bytes exact", Limits{MaxBytes: 400}, 2},
		{"one file larger than the limit", Limits{MaxBytes: 1}, 1},
		{"files first", Limits{MaxFiles: 1, MaxBytes: 10000}, 1},
		{"bytes first", Limits{MaxFiles: 4, MaxBytes: 420}, 3},
	}
	for _, tc := range tests {
		if got := Select(pending, tc.lim); len(got) != tc.want {
			t.Errorf("%s: %d files, want %d", tc.name, len(got), tc.want)
		}
	}
	if got := Select(nil, Limits{MaxFiles: 3}); len(got) != 0 {
		t.Errorf("empty pending: %v", got)
	}
}

func TestSealPlanKeepsTheFirst(t *testing.T) {
	ctx := context.Background()
	cp := memstore.New()
	first := &Plan{BatchID: 3, Stream: "s", Files: []PlanFile{{Path: "a", Size: 1}}}
	got, err := Seal(ctx, cp, first)
	if err != nil || got != first {
		t.Fatalf("seal: %v %v", got, err)
	}
	second := &Plan{BatchID: 3, Stream: "s", Files: []PlanFile{{Path: "b", Size: 1}}}
	got, err = Seal(ctx, cp, second)
	if err != nil || len(got.Files) != 1 || got.Files[0].Path != "a" {
		t.Fatalf("a second plan for batch 3 must yield the first: %+v %v", got, err)
	}
}

// FuzzReadPlan: whatever bytes sit at a plan's key, Read returns an
// error or a plan for that batch, and never panics.
func FuzzReadPlan(f *testing.F) {
	f.Add([]byte(`{"batchId":7,"stream":"s","createdAt":"2026-11-29T00:00:00Z","files":[{"path":"a b.json","size":3,"etag":"x"}]}`))
	f.Add([]byte(`{"batchId":8}`))
	f.Add([]byte(`{"files":null}`))
	f.Add([]byte(`[]`))
	f.Add([]byte{0xff, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		cp := memstore.New()
		if err := cp.Put(ctx, Key(7), bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		p, ok, err := Read(ctx, cp, 7)
		if err != nil {
			return
		}
		if !ok || p == nil || p.BatchID != 7 {
			t.Fatalf("Read accepted %q as %+v (ok %v)", data, p, ok)
		}
	})
}

func TestWithoutDropped(t *testing.T) {
	p := &Plan{BatchID: 3, Files: []PlanFile{{Path: "a"}, {Path: "b"}, {Path: "c"}}}
	tests := []struct {
		name    string
		dropped []string
		want    []string
		wantErr bool
	}{
		{"none", nil, []string{"a", "b", "c"}, false},
		{"middle", []string{"b"}, []string{"a", "c"}, false},
		{"all but one", []string{"c", "a"}, []string{"b"}, false},
		{"unknown path", []string{"b", "z"}, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := WithoutDropped(p, tc.dropped)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("no error, plan %v", q.Paths())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := q.Paths(); !slices.Equal(got, tc.want) {
				t.Fatalf("paths %v, want %v", got, tc.want)
			}
			if len(p.Files) != 3 {
				t.Fatal("the sealed plan was changed")
			}
		})
	}
}

// recordingClaimer records the files its ClaimFiles is given.
type recordingClaimer struct {
	state.Store
	got []state.File
}

func (r *recordingClaimer) ClaimFiles(_ context.Context, _ string, _ int64, files []state.File) ([]bool, error) {
	r.got = append(r.got, files...)
	owned := make([]bool, len(files))
	for i := range owned {
		owned[i] = true
	}
	return owned, nil
}

// TestPlanCarriesModTime: a plan keeps each file's modification time from
// discovery through sealing and reading back, and its claim hands it to
// the store, so a claim replayed from the sealed plan by another process
// records it too; a plan sealed without it (older releases) reads back
// with a zero time.
func TestPlanCarriesModTime(t *testing.T) {
	ctx := context.Background()
	mod := time.Date(2026, 11, 30, 8, 1, 2, 345678901, time.UTC)
	pending := []state.Entry{{File: state.File{Path: "a", Size: 1, ETag: "e", ModTime: mod}}, {File: state.File{Path: "b", Size: 2}}}
	p := &Plan{BatchID: 4, Stream: "s", Files: Select(pending, Limits{})}
	cp := memstore.New()
	if _, err := Seal(ctx, cp, p); err != nil {
		t.Fatal(err)
	}
	back, ok, err := Read(ctx, cp, 4)
	if err != nil || !ok {
		t.Fatalf("Read: %v %v", ok, err)
	}
	if !back.Files[0].ModTime.Equal(mod) || !back.Files[1].ModTime.IsZero() {
		t.Fatalf("sealed plan files %+v, want a's modification time %v and none for b", back.Files, mod)
	}
	rec := &recordingClaimer{}
	if _, err := Claim(ctx, rec, "s", back, slog.Default()); err != nil {
		t.Fatal(err)
	}
	want := state.File{Path: "b", Size: 2}
	if len(rec.got) != 2 || !rec.got[0].ModTime.Equal(mod) || rec.got[0].Path != "a" || rec.got[0].ETag != "e" || rec.got[1] != want {
		t.Fatalf("claimed %+v, want a with its modification time, then %+v", rec.got, want)
	}
	old := []byte(`{"batchId":5,"stream":"s","createdAt":"2026-11-29T00:00:00Z","files":[{"path":"x","size":3,"etag":"y"}]}`)
	if err := cp.Put(ctx, Key(5), bytes.NewReader(old)); err != nil {
		t.Fatal(err)
	}
	if q, _, err := Read(ctx, cp, 5); err != nil || !q.Files[0].ModTime.IsZero() {
		t.Fatalf("older plan: %+v %v", q, err)
	}
}
