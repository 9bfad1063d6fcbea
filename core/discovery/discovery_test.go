package discovery

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/core/state/memstate"
)

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		reject  []string
	}{
		{"*.json", []string{"a.json", ".json", "x y.json"}, []string{"a.json.gz", "a.csv", "json"}},
		{"*.{json,csv}", []string{"a.json", "b.csv"}, []string{"c.txt"}},
		{"part-?.json", []string{"part-1.json"}, []string{"part-10.json"}},
		{"[ab]*", []string{"apple", "banana"}, []string{"cherry"}},
		{"[!ab]*", []string{"cherry"}, []string{"apple"}},
		{"[^ab]*", []string{"cherry"}, []string{"banana"}},
		{"{a,b{c,d}}.txt", []string{"a.txt", "bc.txt", "bd.txt"}, []string{"b.txt", "abc.txt"}},
		{`\*.txt`, []string{"*.txt"}, []string{"a.txt"}},
	}
	for _, tc := range tests {
		t.Run(tc.pattern, func(t *testing.T) {
			g, err := CompileGlob(tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range tc.match {
				if !g.Match(m) {
					t.Errorf("%q should match %q", tc.pattern, m)
				}
			}
			for _, r := range tc.reject {
				if g.Match(r) {
					t.Errorf("%q should not match %q", tc.pattern, r)
				}
			}
		})
	}
}

func TestGlobErrors(t *testing.T) {
	for _, p := range []string{"{a,b", "a}", "[a", "{[}"} {
		_, err := CompileGlob(p)
		if !errors.Is(err, ErrBadGlob) || !strings.Contains(err.Error(), p) {
			t.Errorf("CompileGlob(%q) = %v, want ErrBadGlob naming the pattern", p, err)
		}
	}
}

func FuzzCompileGlob(f *testing.F) {
	for _, s := range []string{"*.json", "{a,b}", "[!x]?", `\{`, "{{{{a}}}}", "{a,b}{c,d}{e,f}"} {
		f.Add(s, "a.json")
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		g, err := CompileGlob(pattern)
		if err != nil {
			if !errors.Is(err, ErrBadGlob) {
				t.Fatalf("error does not wrap ErrBadGlob: %v", err)
			}
			return
		}
		g.Match(name)
	})
}

func TestFilterAccept(t *testing.T) {
	g, _ := CompileGlob("*.json")
	tests := []struct {
		key  string
		glob bool
		want bool
	}{
		{"a.json", false, true},
		{"dir/", false, false},
		{"_SUCCESS", false, false},
		{"dir/_tmp/a.json", false, false},
		{".hidden/a.json", false, false},
		{"2026/11/a b+c.json", true, true},
		{"2026/11/a.csv", true, false},
		{"x.json/y.csv", true, false},
		// Spark's rules (HadoopFSUtils.shouldFilterOutPathName).
		{"a.json._COPYING_", false, false},
		{"dir/a.json._COPYING_", true, false},
		{"dir._COPYING_/a.json", false, false},
		{"a._COPYING_.json", false, true},
		{"_COPYING_", false, false},
		{"_year=2024/a.json", false, true},
		{"d/_part=1/_x=y/a.json", true, true},
		{"_metadata", false, false},
		{"d/_common_metadata", false, false},
		{".x=1/a.json", false, false},
		{"a//b.json", false, false},
	}
	for _, tc := range tests {
		f := Filter{}
		if tc.glob {
			f.Glob = g
		}
		if got := f.Accept(tc.key); got != tc.want {
			t.Errorf("Accept(%q, glob=%v) = %v, want %v", tc.key, tc.glob, got, tc.want)
		}
	}
}

func TestRegisterAllCountsAndDedups(t *testing.T) {
	ctx := context.Background()
	src := memstore.New()
	for _, k := range []string{"a.json", "b.json", "c.csv", "_SUCCESS", "d/e.json"} {
		if err := src.Put(ctx, k, strings.NewReader(k)); err != nil {
			t.Fatal(err)
		}
	}
	g, _ := CompileGlob("*.json")
	r := &Registrar{State: memstate.New(), Stream: "s", ChunkSize: 2}
	res, err := r.RegisterAll(ctx, List(ctx, src, Filter{Glob: g}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Listed != 3 || res.New != 3 || res.Bytes != int64(len("a.json")+len("b.json")+len("d/e.json")) {
		t.Fatalf("first pass = %+v", res)
	}
	res, err = r.RegisterAll(ctx, List(ctx, src, Filter{Glob: g}))
	if err != nil || res.Listed != 3 || res.New != 0 {
		t.Fatalf("second pass = %+v, %v", res, err)
	}
}

func TestRegistrarTimeBounds(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	files := []state.File{
		{Path: "ancient.json", ModTime: now.Add(-40 * 24 * time.Hour)},
		{Path: "old.json", ModTime: now.Add(-20 * 24 * time.Hour)},
		{Path: "recent.json", ModTime: now.Add(-time.Hour)},
		{Path: "unknown-time.json"},
	}
	tests := []struct {
		name      string
		notBefore time.Time
		maxAge    time.Duration
		want      int
	}{
		{"no bounds", time.Time{}, 0, 4},
		{"maxFileAge 30 days", time.Time{}, 30 * 24 * time.Hour, 3},
		{"stream started 2 days ago", now.Add(-48 * time.Hour), 0, 2},
		{"both: the later bound wins", now.Add(-48 * time.Hour), 30 * 24 * time.Hour, 2},
	}
	for _, tc := range tests {
		st := memstate.New()
		r := &Registrar{State: st, Stream: "s", NotBefore: tc.notBefore, MaxFileAge: tc.maxAge, Now: func() time.Time { return now }}
		n, _, err := r.Register(ctx, files)
		if err != nil || n != tc.want {
			t.Errorf("%s: registered %d, want %d (err %v)", tc.name, n, tc.want, err)
		}
		if tc.maxAge > 0 {
			if e, err := st.ExpiresAt(ctx, "s", "recent.json"); err != nil || !e.Equal(now.Add(tc.maxAge)) {
				t.Errorf("%s: expiry %v, %v", tc.name, e, err)
			}
		}
	}
}

func TestAcceptModTime(t *testing.T) {
	at := time.Date(2020, 6, 1, 13, 0, 0, 0, time.UTC)
	after := Filter{ModifiedAfter: &at}
	before := Filter{ModifiedBefore: &at}
	tests := []struct {
		mod           time.Time
		after, before bool
	}{
		{at, false, false}, // strict on both sides
		{at.Add(time.Millisecond), true, false},
		{at.Add(999 * time.Microsecond), false, false}, // milliseconds, as Hadoop's FileStatus
		{at.Add(-time.Millisecond), false, true},
		{at.Add(-time.Nanosecond), false, true},
		{at.Add(time.Hour), true, false},
		{time.Time{}, false, true},
	}
	for _, tc := range tests {
		if got := after.AcceptModTime(tc.mod); got != tc.after {
			t.Errorf("modifiedAfter %v: AcceptModTime(%v) = %v", at, tc.mod, got)
		}
		if got := before.AcceptModTime(tc.mod); got != tc.before {
			t.Errorf("modifiedBefore %v: AcceptModTime(%v) = %v", at, tc.mod, got)
		}
	}
	if (Filter{}).HasTimeBounds() || !after.HasTimeBounds() || !before.HasTimeBounds() {
		t.Error("HasTimeBounds")
	}
	end := at.Add(time.Hour)
	window := Filter{ModifiedAfter: &at, ModifiedBefore: &end}
	if !window.AcceptModTime(at.Add(time.Minute)) || window.AcceptModTime(end) || window.AcceptModTime(at) {
		t.Error("window")
	}
}

func TestPassAppliesModTimeBounds(t *testing.T) {
	ctx := context.Background()
	src := memstore.New()
	for _, k := range []string{"a.json", "b.json"} {
		if err := src.Put(ctx, k, strings.NewReader(k)); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-time.Hour)
	future := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		f    Filter
		want int
	}{
		{Filter{}, 2},
		{Filter{ModifiedAfter: &past}, 2},
		{Filter{ModifiedAfter: &future}, 0},
		{Filter{ModifiedBefore: &past}, 0},
		{Filter{ModifiedBefore: &future}, 2},
	} {
		for _, workers := range []int{1, 4} {
			r := &Registrar{State: memstate.New(), Stream: "s"}
			res, err := r.Pass(ctx, PassOptions{Source: src, Filter: tc.f, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if res.New != tc.want {
				t.Errorf("%+v, %d workers: %d files, want %d", tc.f, workers, res.New, tc.want)
			}
		}
	}
}

func TestRegisterAllRecordsSkippedEntries(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	found := []Found{
		{File: state.File{Path: "a.json", Size: 3, ModTime: now}},
		{File: state.File{Path: "dangling.json", ModTime: now}, Skip: "symbolic link to \"x\", which does not exist"},
		{File: state.File{Path: "loop/"}, Skip: "directory loop"},
		{File: state.File{Path: "old-dangling.json", ModTime: now.Add(-48 * time.Hour)}, Skip: "dangling"},
	}
	seq := func(yield func(Found, error) bool) {
		for _, f := range found {
			if !yield(f, nil) {
				return
			}
		}
	}
	var logs strings.Builder
	st := memstate.New()
	r := &Registrar{State: st, Stream: "s", NotBefore: now.Add(-time.Hour), Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	res, err := r.RegisterAll(ctx, seq)
	if err != nil {
		t.Fatal(err)
	}
	if res.Listed != 1 || res.New != 1 || res.Skipped != 2 || res.Existing != 0 {
		t.Fatalf("first pass = %+v", res)
	}
	for _, p := range []string{"dangling.json", "loop/"} {
		e, err := st.Get(ctx, "s", p)
		if err != nil || e.State != state.Skipped || e.BatchID != -1 || e.Error == "" {
			t.Errorf("%s: %+v, %v", p, e, err)
		}
		if !strings.Contains(logs.String(), "path="+p) {
			t.Errorf("no warning logged for %s: %s", p, logs.String())
		}
	}
	if _, err := st.Get(ctx, "s", "old-dangling.json"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("an entry older than NotBefore was recorded: %v", err)
	}
	// A second pass records and logs nothing new.
	logs.Reset()
	res, err = r.RegisterAll(ctx, seq)
	if err != nil || res.Skipped != 0 || res.New != 0 || logs.Len() != 0 {
		t.Fatalf("second pass = %+v, %v, logs %q", res, err, logs.String())
	}
}
