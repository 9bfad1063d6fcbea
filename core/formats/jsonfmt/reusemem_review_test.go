package jsonfmt

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// TestReviewReusedPlanReleasesReader: the plan a closed reader leaves in
// ReadOptions.Reuse does not keep that reader alive (its tape, whose
// nodes grow with the file's largest record, its buffers and free
// batches): the fast decoder's Other hook pointed back at the reader until
// the next reader took the plan, and the last file's plan waits in Reuse
// until the pipeline ends.
func TestReviewReusedPlanReleasesReader(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "a", Type: schema.Long, Nullable: true},
		{Name: "t", Type: schema.Timestamp, Nullable: true},
	}}
	doc := `{"a":1,"t":"2024-01-01T00:00:00Z"}` + "\n" + `{"a":[` + strings.Repeat("1,", 10000) + `1]}` + "\n"
	reuse := &fileformat.Reuse{}
	collected := make(chan struct{})
	func() {
		rr, err := Format{}.Open(context.Background(), strings.NewReader(doc), s, fileformat.ReadOptions{FilePath: "f.json", Reuse: reuse, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		b, err := parquetio.NewColumnBatch(s)
		if err != nil {
			t.Fatal(err)
		}
		for {
			if err := rr.(parquetio.BatchReader).ReadBatch(b, 100, 1<<20); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		rd := rr.(*reader)
		if rd.fastDec == nil {
			t.Fatal("no fast decoder: the test does not test the hook")
		}
		runtime.SetFinalizer(rd, func(*reader) { close(collected) })
		rr.Close()
	}()
	deadline := time.Now().Add(3 * time.Second)
	for {
		runtime.GC()
		select {
		case <-collected:
			if reuse.Take() == nil {
				t.Fatal("no plan left in Reuse")
			}
			return
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the closed reader is still reachable (through the plan left in Reuse)")
		}
	}
}
