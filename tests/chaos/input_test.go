package chaos

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The input: numFiles NDJSON files of 3 to 11 rows each, every third one
// gzipped; each row's id is unique across the stream.
const (
	numFiles = 100
	// firstFiles are in the source before the first run; the others
	// arrive in groups of groupSize while the stream is being killed.
	firstFiles = 40
	groupSize  = 6
	// ignoredName is the file of the cleanSource variant that its
	// pathGlobFilter leaves out: never ingested, never moved.
	ignoredName = "notes.txt"
	// corruptName is the unreadable file of the cleanSource variant: it is
	// skipped (ignoreCorruptFiles=true), never moved, and has no rows.
	corruptName = "bad.json.gz"
)

// inputFile is one source file as the test writes it.
type inputFile struct {
	num     int    // 1..numFiles; 0 for the ignored and the corrupt file
	name    string // path relative to the source
	data    []byte // the bytes written (gzipped or not)
	rows    []expectedRow
	ignored bool // left out by pathGlobFilter
	corrupt bool // unreadable: skipped
}

// expectedRow is what delta-rs must read for one input row. With the
// default cloudFiles.inferColumnTypes=false every column is a string.
type expectedRow struct {
	id, file, row, payload string
	extra                  *string // the column that appears mid-stream, if the file has it
}

// makeFile builds input file num; files from newColumnFrom on (when > 0)
// carry the column "extra".
func makeFile(t *testing.T, num, newColumnFrom int) inputFile {
	t.Helper()
	f := inputFile{num: num, name: fmt.Sprintf("f%03d.json", num)}
	var buf bytes.Buffer
	for r := 1; r <= 3+(num*7)%9; r++ {
		row := expectedRow{
			id:      fmt.Sprintf("f%03d-r%02d", num, r),
			file:    fmt.Sprint(num),
			row:     fmt.Sprint(r),
			payload: fmt.Sprintf("payload %d/%d: é \"quoted\" %s", num, r, bytes.Repeat([]byte{'x'}, (num*r)%50)),
		}
		rec := map[string]any{"id": row.id, "file": num, "row": r, "payload": row.payload}
		if newColumnFrom > 0 && num >= newColumnFrom {
			extra := "x-" + row.id
			row.extra = &extra
			rec["extra"] = extra
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(append(line, '\n'))
		f.rows = append(f.rows, row)
	}
	f.data = buf.Bytes()
	if num%3 == 0 {
		f.name += ".gz"
		var gz bytes.Buffer
		w := gzip.NewWriter(&gz)
		if _, err := w.Write(f.data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.data = gz.Bytes()
	}
	return f
}

// ignoredFile is a file that pathGlobFilter=*.json* leaves out; were it
// read, its line would be a corrupt record.
func ignoredFile() inputFile {
	return inputFile{name: ignoredName, data: []byte("notes: not part of the stream\n"), ignored: true}
}

// corruptFile is a .gz file that is not gzip at all: unreadable from its
// first byte, so it has no rows, whatever ignoreCorruptFiles keeps.
func corruptFile() inputFile {
	return inputFile{name: corruptName, data: []byte("this is not gzip data\n"), corrupt: true}
}

// place makes file f appear in dir at once: it is written in staging and
// renamed into place, so a listing never sees it half-written.
func place(t *testing.T, staging, dir string, f inputFile) {
	t.Helper()
	tmp := filepath.Join(staging, filepath.Base(f.name))
	if err := os.WriteFile(tmp, f.data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, f.name)); err != nil {
		t.Fatal(err)
	}
}
