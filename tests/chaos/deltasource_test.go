package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/scan"
	"github.com/tributary-io/tributary/infra/localfs"
)

// TestChaosDeltaSource: a bronze -> silver stream (`tributary run --format
// delta`) is SIGKILLed at random moments while the bronze table receives
// appends (by the CLI's file stream) between and during its runs. After
// the kills the silver stream runs to completion: every bronze row is in
// silver exactly once, and silver's txn version is its last sealed plan.
func TestChaosDeltaSource(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv(seedEnv); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: want an integer", seedEnv, s)
		}
	}
	t.Logf("seed %d (replay the kill timing with %s=%d)", seed, seedEnv, seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	bin, _ := buildCLI(t)
	dir := t.TempDir()
	src, bronze, silver := filepath.Join(dir, "in"), filepath.Join(dir, "bronze"), filepath.Join(dir, "silver")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	files := 0
	addBronze := func(k int) {
		for range k {
			var b strings.Builder
			for r := range 3 {
				fmt.Fprintf(&b, "{\"id\": %d}\n", files*3+r)
			}
			if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("f%04d.json", files)), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			files++
		}
		o := runCLI(t, bin, []string{"run", "--quiet", "--stream", "bronze", "--source", src, "--table", bronze,
			"--checkpoint", filepath.Join(bronze, "_checkpoints"), "--option", "cloudFiles.format=json",
			"--option", "cloudFiles.maxFilesPerTrigger=1"}, killPlan{afterLines: -1}, nil)
		if o.killed || o.code != 0 {
			t.Fatalf("bronze run: %s", o)
		}
	}
	args := []string{"run", "--format", "delta", "--stream", "silver", "--source", bronze, "--table", silver,
		"--checkpoint", filepath.Join(silver, "_checkpoints"), "--option", "maxFilesPerTrigger=1"}
	addBronze(8)
	killed, batchEst := 0, 30*time.Millisecond
	for i := range 14 {
		kp := killPlan{afterLines: rng.IntN(2), delay: time.Duration(rng.Float64() * float64(2*batchEst))}
		var during func()
		if i%4 == 1 {
			during = func() { addBronze(2) }
		}
		o := runCLI(t, bin, args, kp, during)
		if o.killed {
			killed++
		} else if o.code != 0 {
			t.Fatalf("silver run %d: %s", i, o)
		}
		if o.batchGap > 0 {
			batchEst = (7*batchEst + 3*o.batchGap) / 10
		}
	}
	addBronze(1)
	for range 2 {
		if o := runCLI(t, bin, args, killPlan{afterLines: -1}, nil); o.killed || o.code != 0 {
			t.Fatalf("final silver run: %s", o)
		}
	}
	// Every bronze row exactly once.
	want := make([]string, files*3)
	for i := range want {
		want[i] = strconv.Itoa(i)
	}
	slices.Sort(want)
	ctx := context.Background()
	st, err := localfs.New(silver)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := delta.NewTable(st).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	col := snap.Schema().FieldIndex("id")
	if err := scan.Rows(ctx, snap, func(fr scan.FileRows) error {
		for _, r := range fr.Rows {
			got = append(got, fmt.Sprint(r[col]))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("silver holds %d rows, bronze %d: silver %v", len(got), len(want), got)
	}
	plans, _ := filepath.Glob(filepath.Join(silver, "_checkpoints", "offsets", "0*.json"))
	if v, ok := snap.TxnVersion("silver"); !ok || v != int64(len(plans)-1) {
		t.Errorf("silver txn version %d (%t), %d sealed plans", v, ok, len(plans))
	}
	t.Logf("%d bronze files, %d silver kills, %d silver batches, silver version %d", files, killed, len(plans), snap.Version)
}
