package discovery

import (
	"context"
	"errors"
	"fmt"
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

func TestListParallelSeesEveryFileOnce(t *testing.T) {
	ctx := context.Background()
	src := memstore.New()
	want := map[string]bool{}
	keys := []string{"top.json", "_hidden/x.json", ".tmp/y.json", "2026/11/_SUCCESS"}
	for d := 0; d < 5; d++ {
		for h := 0; h < 7; h++ {
			keys = append(keys, fmt.Sprintf("2026/11/%02d/%02d/part %d.json", d, h, h))
		}
	}
	keys = append(keys, "2026/loose.json", "other/a+b.json")
	for _, k := range keys {
		if err := src.Put(ctx, k, strings.NewReader(k)); err != nil {
			t.Fatal(err)
		}
		if (Filter{}).Accept(k) {
			want[k] = true
		}
	}
	for _, workers := range []int{1, 2, 8, 64} {
		got := map[string]int{}
		for f, err := range ListParallel(ctx, src, Filter{}, workers) {
			if err != nil {
				t.Fatal(err)
			}
			got[f.Path]++
		}
		if len(got) != len(want) {
			t.Fatalf("workers %d: %d files, want %d", workers, len(got), len(want))
		}
		for k, n := range got {
			if n != 1 || !want[k] {
				t.Fatalf("workers %d: %s seen %d times (wanted: %v)", workers, k, n, want[k])
			}
		}
	}
	// Stopping early must not leak or block.
	for range ListParallel(ctx, src, Filter{}, 8) {
		break
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
