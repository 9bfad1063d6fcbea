package ingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/parquetio"
)

// TestReviewManyFilesAnyProcs converts many small NDJSON files of odd
// shapes (empty, blank, no final newline, CRLF, a malformed last line, a
// file past the read buffer) at GOMAXPROCS 1, 2 and 4, several files per
// batch so the pipeline's decoders overlap: every good id lands exactly
// once and each malformed line gives one row without an id. Run it with
// -race too.
func TestReviewManyFilesAnyProcs(t *testing.T) {
	const files = 90
	body := func(f int, first int) (string, int, int) {
		var b strings.Builder
		n := f % 7
		if f%13 == 0 {
			n = 3000 // past the read buffers
		}
		for i := range n {
			fmt.Fprintf(&b, `{"id": %d, "name": "r%d", "tags": ["x", null, "%s"], "o": {"a": %d}}`, first+i, i, strings.Repeat("é", i%5), i)
			if f%5 == 1 {
				b.WriteString("\r")
			}
			if i < n-1 || f%3 != 0 {
				b.WriteString("\n")
			}
		}
		bad := 0
		switch f % 9 {
		case 4:
			b.WriteString("\n\n  \n")
		case 8:
			if n > 0 && f%3 == 0 {
				b.WriteString("\n")
			}
			b.WriteString(`{"id": 1, "name": `) // malformed last line, no newline
			bad = 1
		}
		return b.String(), n, bad
	}
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			w := newWorld()
			good, bad := 0, 0
			for f := range files {
				s, n, nb := body(f, good)
				good += n
				bad += nb
				if err := w.src.Put(context.Background(), fmt.Sprintf("in/f%03d.json", f), strings.NewReader(s)); err != nil {
					t.Fatal(err)
				}
			}
			w.discover(t)
			e := w.engine(t, Limits{MaxFiles: 40})
			if _, err := e.RunAvailableNow(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			ids, nulls := reviewIDs(t, w)
			if nulls != bad {
				t.Fatalf("%d rows without an id, want %d (malformed lines)", nulls, bad)
			}
			checkExactlyOnce(t, ids, good)
		})
	}
}

// reviewIDs counts each id in the table and the rows without one.
func reviewIDs(t *testing.T, w *world) (map[int64]int, int) {
	ctx := context.Background()
	snap, err := delta.NewTable(w.table).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, nulls := map[int64]int{}, 0
	for add := range snap.Files() {
		rc, err := w.table.Get(ctx, add.Path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		fs, rows, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		st, err := add.ParseStats()
		if err != nil || st.NumRecords != int64(len(rows)) {
			t.Fatalf("%s: stats numRecords %v, file has %d rows (err %v)", add.Path, st, len(rows), err)
		}
		idx := fs.FieldIndex("id")
		for _, r := range rows {
			if r[idx] == nil {
				nulls++
				continue
			}
			ids[r[idx].(int64)]++
		}
	}
	return ids, nulls
}
