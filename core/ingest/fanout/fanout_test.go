package fanout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore/memstore"
)

func TestWidth(t *testing.T) {
	run := RunnerFunc(func(context.Context, Request) error { return nil })
	mb := int64(1 << 20)
	tests := []struct {
		name  string
		cfg   *Config
		sizes []int64
		want  int
	}{
		{"nil config", nil, []int64{mb, mb}, 1},
		{"no runner", &Config{MaxConverters: 4, BytesPerConverter: 1}, []int64{mb, mb}, 1},
		{"one converter", &Config{Runner: run, MaxConverters: 1, BytesPerConverter: 1}, []int64{mb, mb}, 1},
		{"one file", &Config{Runner: run, MaxConverters: 4, BytesPerConverter: 1}, []int64{mb}, 1},
		{"ceil of bytes", &Config{Runner: run, MaxConverters: 8, BytesPerConverter: 3 * mb}, []int64{mb, mb, mb, mb, mb, mb, mb}, 3},
		{"bounded by max", &Config{Runner: run, MaxConverters: 2, BytesPerConverter: mb}, []int64{mb, mb, mb, mb}, 2},
		{"bounded by files", &Config{Runner: run, MaxConverters: 8, BytesPerConverter: 1}, []int64{mb, mb, mb}, 3},
		{"under one converter", &Config{Runner: run, MaxConverters: 8, BytesPerConverter: 10 * mb}, []int64{mb, mb}, 1},
		{"default bytes", &Config{Runner: run, MaxConverters: 8}, []int64{100 * mb, 100 * mb, 100 * mb}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cfg.Width(tc.sizes); got != tc.want {
				t.Fatalf("Width = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int64
		n     int
		want  []int
	}{
		{"equal files, two shares", []int64{10, 10, 10, 10}, 2, []int{0, 2, 4}},
		{"equal files, four shares", []int64{10, 10, 10, 10, 10, 10, 10, 10}, 4, []int{0, 2, 4, 6, 8}},
		{"one share", []int64{1, 2, 3}, 1, []int{0, 3}},
		{"as many shares as files", []int64{5, 1, 9}, 3, []int{0, 1, 2, 3}},
		{"more shares than files", []int64{5, 1}, 4, []int{0, 1, 2}},
		{"a big file first", []int64{100, 1, 1, 1, 1}, 2, []int{0, 1, 5}},
		{"a big file last keeps a file per share", []int64{1, 1, 1, 100}, 3, []int{0, 2, 3, 4}},
		{"zero sizes", []int64{0, 0, 0, 0}, 2, []int{0, 1, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Split(tc.sizes, tc.n); !slices.Equal(got, tc.want) {
				t.Fatalf("Split = %v, want %v", got, tc.want)
			}
		})
	}
}

// checkCuts asserts Split's contract: n+1 cuts from 0 to len, strictly
// increasing (no empty share).
func checkCuts(t *testing.T, sizes []int64, n int, cuts []int) {
	t.Helper()
	want := max(1, min(n, len(sizes)))
	if len(sizes) == 0 {
		if !slices.Equal(cuts, []int{0, 0}) {
			t.Fatalf("Split(empty) = %v", cuts)
		}
		return
	}
	if len(cuts) != want+1 || cuts[0] != 0 || cuts[want] != len(sizes) {
		t.Fatalf("Split(%v, %d) = %v", sizes, n, cuts)
	}
	for i := 0; i < want; i++ {
		if cuts[i+1] <= cuts[i] {
			t.Fatalf("Split(%v, %d) = %v: share %d is empty", sizes, n, cuts, i)
		}
	}
}

func FuzzSplit(f *testing.F) {
	f.Add([]byte{10, 10, 10, 10}, 2)
	f.Add([]byte{200, 1, 1}, 3)
	f.Add([]byte{}, 1)
	f.Fuzz(func(t *testing.T, raw []byte, n int) {
		if n < -5 || n > 300 {
			return
		}
		sizes := make([]int64, len(raw))
		for i, b := range raw {
			sizes[i] = int64(b) * 1000
		}
		checkCuts(t, sizes, n, Split(sizes, n))
		if !slices.Equal(Split(sizes, n), Split(slices.Clone(sizes), n)) {
			t.Fatal("Split is not deterministic")
		}
	})
}

// Balanced shares: with equal files the shares differ by at most one file.
func TestSplitBalancesEqualFiles(t *testing.T) {
	for files := 1; files <= 40; files++ {
		for n := 1; n <= 9; n++ {
			sizes := slices.Repeat([]int64{1000}, files)
			cuts := Split(sizes, n)
			lo, hi := files, 0
			for i := 0; i+1 < len(cuts); i++ {
				lo, hi = min(lo, cuts[i+1]-cuts[i]), max(hi, cuts[i+1]-cuts[i])
			}
			if hi-lo > 1 {
				t.Fatalf("%d files into %d shares: %v", files, n, cuts)
			}
		}
	}
}

func report(req Request, attempt string) *Report {
	return &Report{Batch: req.Batch, Plan: req.Plan, Shares: req.Shares, Share: req.Share, SchemaVersion: req.SchemaVersion,
		Attempt: attempt, Adds: []delta.Add{{Path: fmt.Sprintf("part-%d-%s.parquet", req.Share, attempt), Size: 10, DataChange: true}}, Rows: 3}
}

// The first sealed report of a share wins; later attempts get it back.
func TestSealFirstWins(t *testing.T) {
	ctx := context.Background()
	cp := memstore.New()
	req := Request{Stream: "s", Batch: 7, Plan: "abc", Shares: 3, Share: 1, SchemaVersion: 2}
	got, mine, err := Seal(ctx, cp, report(req, "a"))
	if err != nil || !mine || got.Attempt != "a" {
		t.Fatalf("first seal: %+v %v %v", got, mine, err)
	}
	got, mine, err = Seal(ctx, cp, report(req, "b"))
	if err != nil || mine || got.Attempt != "a" {
		t.Fatalf("second seal: %+v %v %v", got, mine, err)
	}
	r, ok, err := ReadReport(ctx, cp, req.Key())
	if err != nil || !ok || r.Attempt != "a" || len(r.Adds) != 1 {
		t.Fatalf("read: %+v %v %v", r, ok, err)
	}
	if !strings.HasPrefix(req.Key(), ReportsPrefix) {
		t.Fatalf("key %s", req.Key())
	}
}

func TestReadReportRefusesCorrupt(t *testing.T) {
	ctx := context.Background()
	key := ReportKey(1, "p", 0, 2, 0)
	tests := []struct{ name, body string }{
		{"not json", "{"},
		{"another share", `{"batch":1,"plan":"p","shares":2,"share":1,"schemaVersion":0}`},
		{"another batch", `{"batch":2,"plan":"p","shares":2,"share":0,"schemaVersion":0}`},
		{"another plan", `{"batch":1,"plan":"q","shares":2,"share":0,"schemaVersion":0}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cp := memstore.New()
			if err := cp.Put(ctx, key, strings.NewReader(tc.body)); err != nil {
				t.Fatal(err)
			}
			if _, _, err := ReadReport(ctx, cp, key); !errors.Is(err, ErrCorruptReport) {
				t.Fatalf("want ErrCorruptReport, got %v", err)
			}
		})
	}
	if _, ok, err := ReadReport(ctx, memstore.New(), key); ok || err != nil {
		t.Fatalf("missing report: %v %v", ok, err)
	}
}

func FuzzReadReport(f *testing.F) {
	f.Add([]byte(`{"batch":1,"plan":"p","shares":2,"share":0,"schemaVersion":0,"adds":[{"path":"a","size":1}]}`))
	f.Add([]byte(`{"batch":1,"plan":"p","shares":2,"share":0,"newColumns":{"file":"x","paths":["a.b"]}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ctx := context.Background()
		cp := memstore.New()
		key := ReportKey(1, "p", 0, 2, 0)
		if err := cp.Put(ctx, key, strings.NewReader(string(body))); err != nil {
			t.Fatal(err)
		}
		r, ok, err := ReadReport(ctx, cp, key)
		if err != nil {
			if !errors.Is(err, ErrCorruptReport) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if !ok || r.Batch != 1 || r.Plan != "p" || r.Shares != 2 || r.Share != 0 {
			t.Fatalf("accepted %+v for key %s", r, key)
		}
	})
}

// Collect converts only the shares without a report, at most width at
// once, and returns every share's report in order.
func TestCollect(t *testing.T) {
	ctx := context.Background()
	cp := memstore.New()
	base := Request{Stream: "s", Batch: 3, Plan: "abc", Shares: 6, SchemaVersion: 1}
	pre := base
	pre.Share = 4
	if _, _, err := Seal(ctx, cp, report(pre, "earlier")); err != nil {
		t.Fatal(err)
	}
	var running, peak atomic.Int64
	var mu sync.Mutex
	converted := map[int]bool{}
	run := RunnerFunc(func(ctx context.Context, req Request) error {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		mu.Lock()
		converted[req.Share] = true
		mu.Unlock()
		_, _, err := Seal(ctx, cp, report(req, "now"))
		return err
	})
	reports, err := Collect(ctx, cp, run, base, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 6 || converted[4] || len(converted) != 5 {
		t.Fatalf("reports %d, converted %v", len(reports), converted)
	}
	for i, r := range reports {
		if r.Share != i {
			t.Fatalf("report %d is share %d", i, r.Share)
		}
	}
	if reports[4].Attempt != "earlier" {
		t.Fatalf("share 4 was not taken from its sealed report: %+v", reports[4])
	}
	if peak.Load() > 2 {
		t.Fatalf("%d conversions at once, width 2", peak.Load())
	}
}

// A failing share fails Collect with its error, and a runner that returns
// without a sealed report is an error too.
func TestCollectErrors(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	base := Request{Stream: "s", Batch: 1, Plan: "abc", Shares: 4}
	cp := memstore.New()
	_, err := Collect(ctx, cp, RunnerFunc(func(ctx context.Context, req Request) error {
		if req.Share == 2 {
			return boom
		}
		_, _, err := Seal(ctx, cp, report(req, "x"))
		return err
	}), base, 4)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "share 2 of 4") {
		t.Fatalf("want share 2's error, got %v", err)
	}
	_, err = Collect(ctx, memstore.New(), RunnerFunc(func(context.Context, Request) error { return nil }), base, 4)
	if err == nil || !strings.Contains(err.Error(), "no report is sealed") {
		t.Fatalf("want the missing report, got %v", err)
	}
}
