//go:build unix

package convert

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
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/schema"
)

// BenchmarkWriteLocalSmallFiles converts 2,000 local NDJSON files of
// ~1 KiB (the CLI's many-small-files case without listing, state or
// commit): the decoders' opens and reads and the encoder's hand-offs.
func BenchmarkWriteLocalSmallFiles(b *testing.B) {
	ctx := context.Background()
	json, err := formats.Lookup("json")
	if err != nil {
		b.Fatal(err)
	}
	sch := &schema.StructType{Fields: []schema.Field{
		{Name: "id", Type: schema.Long, Nullable: true},
		{Name: "name", Type: schema.String, Nullable: true},
		{Name: "score", Type: schema.Double, Nullable: true},
		{Name: "tags", Type: &schema.ArrayType{Element: schema.String, ContainsNull: true}, Nullable: true},
		{Name: "_rescued_data", Type: schema.String, Nullable: true},
	}}
	dir := b.TempDir()
	var files []string
	var sizes []int64
	id := 0
	for f := range 2000 {
		var s strings.Builder
		for s.Len() < 1000 {
			fmt.Fprintf(&s, `{"id": %d, "name": "user %d", "score": %d.25, "tags": ["a", "b%d"]}`+"\n", id, id%97, id%1000, id%7)
			id++
		}
		key := fmt.Sprintf("part-%05d.json", f)
		if err := os.WriteFile(filepath.Join(dir, key), []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		files, sizes = append(files, key), append(sizes, int64(s.Len()))
	}
	c := &Converter{Source: Source{Store: localStore{localDir{dir: dir}}, Format: json}, Rescued: "_rescued_data",
		ReadOptions: func(path string, bad func(formats.BadRecord)) formats.ReadOptions {
			return formats.ReadOptions{FilePath: path, RescuedDataColumn: "_rescued_data", BadRecords: bad}
		}}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		c.Table = memstore.New()
		out, err := c.Write(ctx, Batch{ID: 1, Files: files, Sizes: sizes, Schema: sch}, Failures{})
		if err != nil {
			b.Fatal(err)
		}
		if out.Rows != int64(id) {
			b.Fatalf("%d rows, want %d", out.Rows, id)
		}
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/op")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
