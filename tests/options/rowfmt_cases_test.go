package options_test

import (
	"bytes"
	"os"
	"slices"
	"testing"
	"time"
)

// rowfmtCases are the behavioural cases of the rowfmt area's options (text,
// binaryFile, avro and xml readers).
func rowfmtCases() []optionCase {
	return []optionCase{
		{name: "wholeText makes each text file one row", options: []string{"wholeText"}, run: func(t *testing.T) {
			const data = "a\nb\r\nc"
			on := rowfmtPipe(t, "text", map[string]string{"f.txt": data}, map[string]string{"wholeText": "true"})
			if got := on.column("value"); !slices.Equal(got, []string{data}) {
				t.Errorf("wholeText=true: value %q, want the whole file", got)
			}
			off := rowfmtPipe(t, "text", map[string]string{"f.txt": data}, nil)
			if got := off.column("value"); !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Errorf("default: value %q, want one row per line", got)
			}
		}},
		{name: "cloudFiles.format=binaryFile reads each file as one row of Spark's schema, bytes as stored", options: []string{"cloudFiles.format"}, run: func(t *testing.T) {
			p := newPipe(t)
			raw := []byte{0x1f, 0x8b, 0, 1, 2, 0xff}
			path := p.writeBytes("d/x.gz", raw)
			p.writeBytes("d/y.bin", nil)
			mod := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
			if err := os.Chtimes(path, mod, mod); err != nil {
				t.Fatal(err)
			}
			p.mustRun(map[string]string{"cloudFiles.format": "binaryFile", "pathGlobFilter": "*.gz"})
			if got := p.schema(); !slices.Equal(got, []string{"path STRING", "modificationTime TIMESTAMP", "length BIGINT", "content BINARY"}) {
				t.Errorf("schema %v", got)
			}
			rows := p.rows()
			if len(rows) != 1 {
				t.Fatalf("%d rows, want 1 (pathGlobFilter *.gz)", len(rows))
			}
			r := rows[0]
			if r["path"] != path || !bytes.Equal(r["content"].([]byte), raw) || r["length"] != int64(len(raw)) || !r["modificationTime"].(time.Time).Equal(mod) {
				t.Errorf("row %v, want path %s, the gzip bytes undecompressed, length %d, modified %v", r, path, len(raw), mod)
			}
			// The same files as text: the .gz name would be decompressed (and fail).
			q := newPipe(t)
			q.writeBytes("x.gz", raw)
			if _, err := q.run(map[string]string{"cloudFiles.format": "text"}); err == nil {
				t.Error("text on a corrupt .gz: no error, want the file unreadable (decompressed by extension)")
			}
		}},
	}
}

// rowfmtPipe ingests files (name -> content) with cloudFiles.format=format
// and opts, and returns the pipe.
func rowfmtPipe(t *testing.T, format string, files map[string]string, opts map[string]string) *pipe {
	t.Helper()
	p := newPipe(t)
	for name, content := range files {
		p.writeBytes(name, []byte(content))
	}
	all := map[string]string{"cloudFiles.format": format}
	for k, v := range opts {
		all[k] = v
	}
	p.mustRun(all)
	return p
}
