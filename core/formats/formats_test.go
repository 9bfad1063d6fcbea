package formats

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/schema"
)

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{"json": "json", "JSON": "json", "Json": "json", "TEXT": "text", "binaryfile": "binaryFile", "Parquet": "parquet", "Avro": "avro", "XML": "xml", "ORC": "orc"} {
		f, err := Lookup(name)
		if err != nil || f.Name() != want {
			t.Errorf("Lookup(%q) = %v, %v", name, f, err)
		}
	}
	for _, name := range []string{"", "png", "jsonl", "delta"} {
		_, err := Lookup(name)
		if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "cloudFiles.format") {
			t.Errorf("Lookup(%q) err = %v, want ErrUnknownFormat", name, err)
		}
	}
	if got := strings.Join(Names(), ","); got != "avro,binaryFile,csv,json,orc,parquet,text,xml" {
		t.Errorf("Names = %s", got)
	}
}

// TestEndToEnd drives the port as the ingest engine does: look up the
// format, infer from a gzipped sample, read it back.
func TestEndToEnd(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, `{"id":1,"name":"a","when":"2024-01-02"}`+"\n"+`{"id":"x","name":"b","new":true}`+"\n")
	zw.Close()
	const path = "s3://bucket/in/part-0.json.gz"
	ctx := context.Background()

	f, err := Lookup("json")
	if err != nil {
		t.Fatal(err)
	}
	hints, err := schema.ParseDDL("id BIGINT, when DATE")
	if err != nil {
		t.Fatal(err)
	}
	inf := f.NewInferrer(InferOptions{Hints: hints, RescuedDataColumn: DefaultRescuedDataColumn})
	body, err := Decompress(path, bytes.NewReader(gz.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := inf.Add(ctx, path, body); err != nil {
		t.Fatal(err)
	}
	body.Close()
	s := inf.Schema()
	if got := s.String(); got != "struct<id:long,name:string,new:string,when:date,_rescued_data:string>" {
		t.Fatalf("schema = %s", got)
	}
	if got := inf.Sampled(); got.Files != 1 || got.Records != 2 || got.Bytes == 0 {
		t.Errorf("Sampled = %+v", got)
	}

	body, err = Decompress(path, bytes.NewReader(gz.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer body.Close()
	rr, err := f.Open(ctx, body, s, ReadOptions{FilePath: path, RescuedDataColumn: DefaultRescuedDataColumn})
	if err != nil {
		t.Fatal(err)
	}
	var rescued []any
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rescued = append(rescued, row[len(row)-1])
	}
	want := []any{nil, `{"id":"x","_file_path":"s3://bucket/in/part-0.json.gz"}`}
	if len(rescued) != 2 || rescued[0] != want[0] || rescued[1] != want[1] {
		t.Errorf("rescued = %q, want %q", rescued, want)
	}
	if st := rr.Stats(); st.RowsRead != 2 || st.RowsRescued != 1 || len(st.MismatchedFields) != 1 {
		t.Errorf("stats = %+v", st)
	}
	if err := rr.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := rr.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("Next after Close = %v", err)
	}
}
