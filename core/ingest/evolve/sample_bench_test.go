//go:build unix

package evolve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/ingest/convert"
	"github.com/tributary-io/tributary/infra/localfs"
)

// BenchmarkSampleFiles infers a schema (inferColumnTypes) from local
// NDJSON files as the first batch of a stream does (the default caps: the
// first 1,000 files): "small" 1,000 files of ~1 KiB, "mid" 100 files of
// ~1 MiB; "serial" file by file, "files" on GOMAXPROCS workers
// (sampleFiles). The files are the CLI comparison's shapes
// (scripts/bench-compare.sh) under TRIBUTARY_BENCH_CACHE when they have
// been cut, else generated ones of the same sizes.
func BenchmarkSampleFiles(b *testing.B) {
	json, err := formats.Lookup("json")
	if err != nil {
		b.Fatal(err)
	}
	for _, shape := range []struct {
		name       string
		files, per int
	}{{"small", 1000, 1 << 10}, {"mid", 100, 1 << 20}} {
		dir, files := sampleShape(b, shape.name, shape.files, shape.per)
		st, err := localfs.New(dir, localfs.WithExistingRoot())
		if err != nil {
			b.Fatal(err)
		}
		c := &convert.Converter{Source: convert.Source{Store: st, Format: json}}
		s := &Schemas{Sample: c.Sample}
		opts := formats.InferOptions{InferColumnTypes: true, RescuedDataColumn: formats.DefaultRescuedDataColumn}
		for _, mode := range []string{"serial", "files"} {
			b.Run(shape.name+"/"+mode, func(b *testing.B) {
				cpu0 := cpuTime()
				for range b.N {
					inf := json.NewInferrer(opts)
					if mode == "serial" {
						err = serialSample(s, inf, files, formats.DefaultSampleFiles)
					} else {
						err = s.sampleFiles(context.Background(), inf, files, formats.DefaultSampleFiles)
					}
					if err != nil {
						b.Fatal(err)
					}
					if inf.Sampled().Files != len(files) {
						b.Fatalf("sampled %d files, want %d", inf.Sampled().Files, len(files))
					}
				}
				b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// sampleShape returns the directory and files of a benchmark shape: the
// first n files of the cut shape when there is one, else n generated
// files of about per bytes.
func sampleShape(b *testing.B, name string, n, per int) (string, []batchplan.PlanFile) {
	if cache := os.Getenv("TRIBUTARY_BENCH_CACHE"); cache != "" {
		dir := filepath.Join(cache, "shapes-v1", name)
		ents, _ := os.ReadDir(dir)
		var files []batchplan.PlanFile
		for _, e := range ents {
			if len(files) == n {
				return dir, files
			}
			if strings.HasPrefix(e.Name(), "part-") {
				fi, err := e.Info()
				if err != nil {
					b.Fatal(err)
				}
				files = append(files, batchplan.PlanFile{Path: e.Name(), Size: fi.Size()})
			}
		}
		if len(files) == n {
			return dir, files
		}
	}
	dir := b.TempDir()
	var files []batchplan.PlanFile
	id := 0
	for f := range n {
		var s strings.Builder
		for s.Len() < per {
			fmt.Fprintf(&s, `{"id": %d, "name": "user %d", "score": %d.25, "tags": ["a", "b%d"], "geo": {"lat": %d.5, "ok": true}}`+"\n", id, id%97, id%1000, id%7, id%90)
			id++
		}
		key := fmt.Sprintf("part-%05d.json", f)
		if err := os.WriteFile(filepath.Join(dir, key), []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, batchplan.PlanFile{Path: key, Size: int64(s.Len())})
	}
	return dir, files
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
