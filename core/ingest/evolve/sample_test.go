package evolve

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/ingest/convert"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/schema"
)

// randomSampleFiles writes n random JSON files to st and returns them in
// order: records drawn from a few field names (differing in case too) and
// value kinds, blank and malformed lines, gzip files (some truncated:
// corrupt), empty files, and listed files that do not exist (missing).
func randomSampleFiles(t *testing.T, r *rand.Rand, st *memstore.Store, n int) []batchplan.PlanFile {
	t.Helper()
	names := []string{"a", "A", "b", "id", "Id", "nested", "arr", "x"}
	values := []func() string{
		func() string { return fmt.Sprint(r.IntN(1000)) },
		func() string { return fmt.Sprint(r.Float64() * 100) },
		func() string { return "123456789012345678901234567" },
		func() string { return "1.50" },
		func() string { return `"s"` },
		func() string { return `""` },
		func() string { return "true" },
		func() string { return "null" },
		func() string { return `{"k":1,"K":"v"}` },
		func() string { return `{"k":2.5}` },
		func() string { return "[1,2]" },
		func() string { return `["x",null]` },
		func() string { return "[]" },
		func() string { return "{}" },
	}
	var files []batchplan.PlanFile
	for i := range n {
		var b strings.Builder
		for range r.IntN(12) {
			switch r.IntN(14) {
			case 0:
				b.WriteString("\n")
				continue
			case 1:
				b.WriteString("{\"a\": oops\n")
				continue
			case 2:
				b.WriteString("[{\"b\":1},{\"a\":\"q\"}]\n")
				continue
			}
			b.WriteString("{")
			for k := range r.IntN(4) {
				if k > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, "%q:%s", names[r.IntN(len(names))], values[r.IntN(len(values))]())
			}
			b.WriteString("}\n")
		}
		data := []byte(b.String())
		path := fmt.Sprintf("in/f%03d.json", i)
		switch r.IntN(8) {
		case 0: // missing
			files = append(files, batchplan.PlanFile{Path: path, Size: int64(len(data))})
			continue
		case 1, 2: // gzip, truncated (corrupt) half the time
			var z bytes.Buffer
			w := gzip.NewWriter(&z)
			w.Write(data)
			w.Close()
			data = z.Bytes()
			if r.IntN(2) == 0 {
				data = data[:len(data)*2/3]
			}
			path += ".gz"
		}
		if err := st.Put(context.Background(), path, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		files = append(files, batchplan.PlanFile{Path: path, Size: int64(len(data))})
	}
	return files
}

// TestSampleParallelMatchesSerial samples random file sets (see
// randomSampleFiles) with random parse modes, file policies, hints, byte
// budgets and file caps, once file by file and once on workers
// (sampleParallel), and checks that both give the same schema, the same
// files, bytes and records sampled, the same error and the same log
// records (retried, skipped files) in the same order. Run it with -race too.
func TestSampleParallelMatchesSerial(t *testing.T) {
	json, err := formats.Lookup("json")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 5))
	merged := 0
	for iter := range 300 {
		st := memstore.New()
		files := randomSampleFiles(t, r, st, 1+r.IntN(24))
		opts := formats.InferOptions{
			InferColumnTypes:   r.IntN(4) != 0,
			RescuedDataColumn:  formats.DefaultRescuedDataColumn,
			Mode:               []fileformat.ParseMode{"", fileformat.DropMalformed, fileformat.FailFast}[r.IntN(3)],
			DropFieldIfAllNull: r.IntN(4) == 0,
		}
		if r.IntN(3) == 0 {
			opts.MaxBytes = int64(1 + r.IntN(400))
		}
		if r.IntN(8) == 0 {
			h, err := schema.ParseDDL("nested STRUCT<k: STRING>")
			if err != nil {
				t.Fatal(err)
			}
			opts.Hints = h
		}
		policy := convert.Policy{IgnoreMissing: r.IntN(3) != 0, IgnoreCorrupt: r.IntN(3) != 0}
		maxFiles := 0
		if r.IntN(3) == 0 {
			maxFiles = 1 + r.IntN(len(files))
		}
		type outcome struct {
			schema  string
			sampled fileformat.Sample
			err     string
			log     string
		}
		run := func(parallel bool) outcome {
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}}))
			c := &convert.Converter{Source: convert.Source{Store: st, Format: json}, Policy: policy, Logger: logger}
			s := &Schemas{Sample: c.Sample}
			inf := json.NewInferrer(opts)
			if parallel {
				fi, ok := inf.(fileformat.ForkInferrer)
				if !ok {
					t.Fatal("the JSON inferrer does not fork")
				}
				fk := countMerges{fi, &merged}
				sample := files
				if maxFiles > 0 {
					sample = files[:maxFiles]
				}
				err = s.sampleParallel(context.Background(), fk, sample, 1+r.IntN(4), 1+r.IntN(6), int64(r.IntN(600)))
			} else {
				err = serialSample(s, inf, files, maxFiles)
			}
			o := outcome{schema: inf.Schema().String(), sampled: inf.Sampled(), log: logs.String()}
			if err != nil {
				o.err = err.Error()
			}
			return o
		}
		want := run(false)
		got := run(true)
		if got != want {
			t.Fatalf("iteration %d (opts %+v, policy %+v, maxFiles %d):\nparallel %+v\nserial   %+v", iter, opts, policy, maxFiles, got, want)
		}
	}
	// The comparison means something only if forks were merged.
	if merged < 200 {
		t.Fatalf("only %d forks merged in 300 iterations", merged)
	}
	t.Logf("%d forks merged", merged)
}

// countMerges counts the forks merged into a ForkInferrer.
type countMerges struct {
	fileformat.ForkInferrer
	n *int
}

// Merge counts and merges.
func (c countMerges) Merge(f formats.Inferrer) {
	*c.n++
	c.ForkInferrer.Merge(f)
}

// serialSample is the serial loop sampleFiles replaces (before it forked).
func serialSample(s *Schemas, inf formats.Inferrer, files []batchplan.PlanFile, maxFiles int) error {
	for i, f := range files {
		if (maxFiles > 0 && i >= maxFiles) || inf.Full() {
			break
		}
		if err := s.Sample(context.Background(), inf, convert.SampleFile{Path: f.Path, Size: -1}); err != nil {
			return err
		}
	}
	return nil
}

// TestDominated: one file holding most of the listed bytes keeps the
// format's own parallel inference of that file.
func TestDominated(t *testing.T) {
	for _, tt := range []struct {
		sizes []int64
		want  bool
	}{
		{[]int64{10, 10}, false},
		{[]int64{0, 0, 0}, false},
		{[]int64{100, 1, 1}, true},
		{[]int64{5, 3, 3}, false},
		{[]int64{7}, true},
	} {
		var files []batchplan.PlanFile
		for _, s := range tt.sizes {
			files = append(files, batchplan.PlanFile{Size: s})
		}
		if got := dominated(files); got != tt.want {
			t.Errorf("dominated(%v) = %v, want %v", tt.sizes, got, tt.want)
		}
	}
}
