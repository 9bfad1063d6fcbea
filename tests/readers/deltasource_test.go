package readers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/delta/scan"
	"github.com/tributary-io/tributary/core/deltasource"
	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/infra/streams"
)

// ivyDir is the Ivy cache holding the Delta jars: the repository's, or the
// one beside TRIBUTARY_SPARK_VENV (worktrees share it).
func ivyDir(root string) string {
	if v := os.Getenv("TRIBUTARY_SPARK_VENV"); v != "" {
		if d := filepath.Join(filepath.Dir(v), "ivy"); dirExists(d) {
			return d
		}
	}
	return filepath.Join(root, ".cache", "ivy")
}

func dirExists(d string) bool {
	fi, err := os.Stat(d)
	return err == nil && fi.IsDir()
}

// silverRun runs a Delta-source stream from bronze into silver as `tributary
// run --format delta` does; crash, when set, is the fault injected.
func silverRun(t *testing.T, bronze, silver string, opts map[string]string, crash func(ingest.Step, int64) error) (ingest.Summary, error) {
	t.Helper()
	s, err := options.Parse(opts, options.Locations{StreamID: "silver", Source: bronze, Table: silver,
		CheckpointLocation: filepath.Join(silver, "_checkpoints"), SourceFormat: "delta"})
	if err != nil {
		return ingest.Summary{}, err
	}
	env := streams.Env{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), TempDir: t.TempDir()}
	st, err := env.Open(context.Background(), s)
	if err != nil {
		return ingest.Summary{}, err
	}
	defer st.Close()
	st.Engine.Runner.(*deltasource.Source).Fault = crash
	return st.Engine.RunAvailableNow(context.Background(), nil)
}

// silverIDs reads the silver table's id column, sorted.
func silverIDs(t *testing.T, silver string) []string {
	t.Helper()
	snap, err := openTable(t, silver).Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	col := snap.Schema().FieldIndex("id")
	if err := scan.Rows(context.Background(), snap, func(fr scan.FileRows) error {
		for _, r := range fr.Rows {
			out = append(out, fmt.Sprint(r[col]))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestBronzeToSilverOverSparkDelete: Spark writes a bronze table (ids
// 1-3, then 4-5, then DELETE WHERE id = 2, then 6). A Delta-source stream
// from version 0 fails at the DELETE with Delta's error by default, skips
// it with skipChangeCommits, starts from the current snapshot by default,
// and delivers every row exactly once under a crash after every step of
// every batch.
func TestBronzeToSilverOverSparkDelete(t *testing.T) {
	root := repoRoot(t)
	bin, err := envBin(root, "spark-env.sh")
	if err != nil {
		t.Fatalf("preparing the Spark Python environment: %v", err)
	}
	bronze := filepath.Join(t.TempDir(), "bronze")
	cmd := exec.Command(filepath.Join(bin, "python"), filepath.Join(root, "tests", "readers", "spark_bronze.py"), ivyDir(root), bronze)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("spark: %v\n%s", err, tail(stderr.String(), 4000))
	}
	if h := strings.Fields(out.String()); !slices.Equal(h, []string{"0", "WRITE", "1", "WRITE", "2", "DELETE", "3", "WRITE"}) {
		t.Fatalf("Spark history %q", out.String())
	}
	fromStart := map[string]string{"startingVersion": "0"}

	t.Run("a DELETE fails the stream by default", func(t *testing.T) {
		silver := filepath.Join(t.TempDir(), "silver")
		_, err := silverRun(t, bronze, silver, fromStart, nil)
		if !errors.Is(err, deltasource.ErrChangeCommit) || !strings.Contains(err.Error(), "DELTA_SOURCE_TABLE_IGNORE_CHANGES") || !strings.Contains(err.Error(), "version 2") {
			t.Fatalf("error %v, want DELTA_SOURCE_TABLE_IGNORE_CHANGES at version 2", err)
		}
		if got := silverIDs(t, silver); !slices.Equal(got, []string{"1", "2", "3", "4", "5"}) {
			t.Errorf("silver ids %v, want the rows before the DELETE (1-5)", got)
		}
		if _, err := silverRun(t, bronze, silver, fromStart, nil); !errors.Is(err, deltasource.ErrChangeCommit) {
			t.Errorf("rerun: %v, want the same failure", err)
		}
	})
	t.Run("skipChangeCommits skips the DELETE", func(t *testing.T) {
		silver := filepath.Join(t.TempDir(), "silver")
		if _, err := silverRun(t, bronze, silver, map[string]string{"startingVersion": "0", "skipChangeCommits": "true"}, nil); err != nil {
			t.Fatal(err)
		}
		if got := silverIDs(t, silver); !slices.Equal(got, []string{"1", "2", "3", "4", "5", "6"}) {
			t.Errorf("silver ids %v, want 1-6 (the DELETE is not propagated)", got)
		}
	})
	t.Run("the default start is the current snapshot", func(t *testing.T) {
		silver := filepath.Join(t.TempDir(), "silver")
		if _, err := silverRun(t, bronze, silver, nil, nil); err != nil {
			t.Fatal(err)
		}
		if got := silverIDs(t, silver); !slices.Equal(got, []string{"1", "3", "4", "5", "6"}) {
			t.Errorf("silver ids %v, want 1 3 4 5 6", got)
		}
	})
	opts := map[string]string{"startingVersion": "0", "skipChangeCommits": "true", "maxFilesPerTrigger": "1"}
	for _, step := range []ingest.Step{ingest.StepPlanned, ingest.StepWritten, ingest.StepCommitted, ingest.StepFinished} {
		for batch := int64(0); batch < 3; batch++ {
			t.Run(fmt.Sprintf("crash after %s of batch %d", step, batch), func(t *testing.T) {
				silver := filepath.Join(t.TempDir(), "silver")
				crashed := false
				crash := func(s ingest.Step, id int64) error {
					if s == step && id == batch && !crashed {
						crashed = true
						return errors.New("crash")
					}
					return nil
				}
				if _, err := silverRun(t, bronze, silver, opts, crash); err == nil || !crashed {
					t.Fatalf("no crash: %v", err)
				}
				sum, err := silverRun(t, bronze, silver, opts, nil)
				if err != nil {
					t.Fatal(err)
				}
				if got := silverIDs(t, silver); !slices.Equal(got, []string{"1", "2", "3", "4", "5", "6"}) {
					t.Errorf("silver ids %v after the restart (%d batches), want 1-6 once each", got, len(sum.Batches))
				}
			})
		}
	}
}
