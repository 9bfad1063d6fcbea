package convert

import (
	"context"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/schema"
)

// countFormat reads a file whose content is a row count as that many rows
// of one long; a file reading "stall" gives one row once stall is closed.
// Each reader's Close sends its file's content to closed.
type countFormat struct {
	stall  chan struct{}
	closed chan string
}

func (countFormat) Name() string { return "count" }

func (countFormat) NewInferrer(formats.InferOptions) formats.Inferrer { return nil }

func (f countFormat) Open(_ context.Context, r io.Reader, _ *schema.StructType, _ formats.ReadOptions) (formats.RowReader, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	content := strings.TrimSpace(string(b))
	cr := &countReader{f: f, content: content, left: 1}
	if content != "stall" {
		if cr.left, err = strconv.Atoi(content); err != nil {
			return nil, err
		}
	}
	return cr, nil
}

type countReader struct {
	f       countFormat
	content string
	left    int
}

func (r *countReader) Next() ([]any, error) {
	if r.content == "stall" {
		<-r.f.stall
	}
	if r.left == 0 {
		return nil, io.EOF
	}
	r.left--
	return []any{int64(r.left)}, nil
}

func (r *countReader) Stats() formats.ReadStats { return formats.ReadStats{} }

func (r *countReader) Close() error {
	r.f.closed <- r.content
	return nil
}

// TestDecoderAheadDecodesItsFile: with two decoders, while the encoder
// waits for the first file, the decoder of the second decodes all of it
// (chunksAhead chunks) rather than stopping at its chunk channel; then
// both files are written whole.
func TestDecoderAheadDecodesItsFile(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	ctx := t.Context()
	f := countFormat{stall: make(chan struct{}), closed: make(chan string, 2)}
	src := memstore.New()
	second := strconv.Itoa(chunksAhead * chunkRows)
	for key, content := range map[string]string{"a": "stall", "b": second} {
		if err := src.Put(ctx, key, strings.NewReader(content)); err != nil {
			t.Fatal(err)
		}
	}
	c := &Converter{Source: Source{Store: src, Format: f, TempDir: t.TempDir()}, Table: memstore.New(),
		ReadOptions: func(path string, _ func(formats.BadRecord)) formats.ReadOptions {
			return formats.ReadOptions{FilePath: path}
		}}
	sch := &schema.StructType{Fields: []schema.Field{{Name: "n", Type: schema.Long, Nullable: true}}}
	type result struct {
		out *Output
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := c.Write(ctx, Batch{ID: 1, Files: []string{"a", "b"}, Schema: sch}, Failures{})
		done <- result{out, err}
	}()
	select {
	case got := <-f.closed:
		if got != second {
			t.Fatalf("file %q closed first, want the second one", got)
		}
	case r := <-done:
		t.Fatalf("the batch ended with the first file stalled: %+v", r)
	case <-time.After(20 * time.Second):
		t.Fatalf("the second file's decoder stopped before its end (%d chunks) while the encoder waited for the first", chunksAhead)
	}
	close(f.stall)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if want := int64(chunksAhead*chunkRows + 1); r.out.Rows != want {
		t.Errorf("%d rows written, want %d", r.out.Rows, want)
	}
	if len(r.out.Skipped) > 0 {
		t.Errorf("skipped %v", r.out.Skipped)
	}
}
