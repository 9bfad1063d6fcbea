package options_test

import (
	"bytes"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
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
		{name: "avroSchema gives the table schema; files' fields match it by name", options: []string{"avroSchema"}, run: func(t *testing.T) {
			const v1 = `{"type":"record","name":"p","fields":[{"name":"id","type":"int"},{"name":"name","type":"string"}]}`
			const reader = `{"type":"record","name":"p","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"},{"name":"age","type":["null","int"],"default":null}]}`
			file := avroFile(t, v1, map[string]any{"id": 1, "name": "John"})
			on := rowfmtPipe(t, "avro", map[string]string{"a.avro": file}, map[string]string{"avroSchema": reader})
			if got := on.schema(); !slices.Equal(got, []string{"id BIGINT", "name STRING", "age INT", "_rescued_data STRING"}) {
				t.Errorf("avroSchema: schema %v", got)
			}
			if got := on.column("id"); !slices.Equal(got, []string{"1"}) {
				t.Errorf("avroSchema: id %v", got)
			}
			off := rowfmtPipe(t, "avro", map[string]string{"a.avro": file}, nil)
			if got := off.schema(); !slices.Equal(got, []string{"id INT", "name STRING", "_rescued_data STRING"}) {
				t.Errorf("default: schema %v, want the file's", got)
			}
			if _, err := newPipe(t).load(map[string]string{"cloudFiles.format": "avro", "avroSchema": `{"type":"record"`}); err == nil {
				t.Error("a malformed avroSchema loads")
			}
		}},
		{name: "cloudFiles.format=avro evolves the schema: a new field stops the stream once, the restart adds it", options: []string{"cloudFiles.format"}, run: func(t *testing.T) {
			const v1 = `{"type":"record","name":"p","fields":[{"name":"id","type":"int"},{"name":"name","type":"string"}]}`
			const v2 = `{"type":"record","name":"p","fields":[{"name":"id","type":"int"},{"name":"name","type":"string"},{"name":"age","type":["null","int"]}]}`
			p := newPipe(t)
			p.writeBytes("1.avro", []byte(avroFile(t, v1, map[string]any{"id": 1, "name": "John"})))
			opts := map[string]string{"cloudFiles.format": "avro"}
			p.mustRun(opts)
			p.writeBytes("2.avro", []byte(avroFile(t, v2, map[string]any{"id": 2, "name": "Bob", "age": map[string]any{"int": 25}})))
			if _, err := p.run(opts); err == nil {
				t.Fatal("a new field did not stop the stream")
			}
			p.mustRun(opts)
			if got := p.schema(); !slices.Equal(got, []string{"id INT", "name STRING", "age INT", "_rescued_data STRING"}) {
				t.Errorf("schema %v", got)
			}
			if got := p.column("age"); !slices.Equal(got, []string{"25", "null"}) {
				t.Errorf("age %v", got)
			}
		}},
	}
}

// avroFile encodes records as an Avro object container file (deflate).
func avroFile(t *testing.T, schemaJSON string, records ...map[string]any) string {
	t.Helper()
	var buf bytes.Buffer
	enc, err := ocf.NewEncoder(schemaJSON, &buf, ocf.WithCodec(ocf.Deflate), ocf.WithEncoderSchemaCache(&avro.SchemaCache{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
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
