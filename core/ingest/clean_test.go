package ingest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/options"
)

func sourceKeys(t *testing.T, s objstore.Store) []string {
	t.Helper()
	var keys []string
	for info, err := range s.List(context.Background(), objstore.ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, info.Key)
	}
	return keys
}

func TestCleanSource(t *testing.T) {
	for _, mode := range []options.CleanSource{options.CleanOff, options.CleanDelete, options.CleanMove} {
		t.Run(string(mode), func(t *testing.T) {
			ctx := context.Background()
			w := newWorld()
			dest := memstore.New()
			w.engineHook = func(e *Engine) {
				e.Config.CleanSource = mode
				e.MoveDestination = dest
				e.Config.Reader.IgnoreCorruptFiles = true
			}
			w.addFile(t, 3)
			w.addFile(t, 3)
			if err := w.src.Put(ctx, "in/broken.json.gz", strings.NewReader("not gzip")); err != nil {
				t.Fatal(err)
			}
			w.discover(t)
			if _, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil); err != nil {
				t.Fatal(err)
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
			left := strings.Join(sourceKeys(t, w.src), ",")
			moved := strings.Join(sourceKeys(t, dest), ",")
			switch mode {
			case options.CleanOff:
				if left != "in/broken.json.gz,in/part 000.json,in/part 001.json" || moved != "" {
					t.Fatalf("left %q moved %q", left, moved)
				}
			case options.CleanDelete:
				if left != "in/broken.json.gz" || moved != "" {
					t.Fatalf("left %q moved %q: only the skipped file stays", left, moved)
				}
			case options.CleanMove:
				if left != "in/broken.json.gz" || moved != "in/part 000.json,in/part 001.json" {
					t.Fatalf("left %q moved %q", left, moved)
				}
			}
		})
	}
}

// TestCleanSourceAfterCrash: a crash between commit and clean is finished
// by the next run, and cleaned files are never ingested again.
func TestCleanSourceAfterCrash(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	dest := memstore.New()
	w.engineHook = func(e *Engine) { e.Config.CleanSource = options.CleanMove; e.MoveDestination = dest }
	w.addFile(t, 4)
	w.discover(t)
	e := w.engine(t, Limits{MaxFiles: 1000})
	e.fault = func(s Step, _ int64) error {
		if s == StepCommitted {
			return errCrash
		}
		return nil
	}
	if _, err := e.RunAvailableNow(ctx, nil); !errors.Is(err, errCrash) {
		t.Fatalf("want the crash, got %v", err)
	}
	if len(sourceKeys(t, w.src)) != 1 {
		t.Fatal("file cleaned before the finish step")
	}
	w.addFile(t, 2)
	w.discover(t)
	if _, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if left := sourceKeys(t, w.src); len(left) != 0 {
		t.Fatalf("left in source: %v", left)
	}
	if moved := sourceKeys(t, dest); len(moved) != 2 {
		t.Fatalf("moved: %v", moved)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
}
