package options_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/internal/arrowtest"
)

// perfCases are the behavioural cases of the performance area (owner:
// helper perf).
func perfCases() []optionCase {
	return []optionCase{
		{name: "parquet.compression.codec: every column chunk of every data file uses the codec; the rows are the same", options: []string{"parquet.compression.codec"}, run: func(t *testing.T) {
			var data strings.Builder
			for i := range 300 {
				fmt.Fprintf(&data, `{"id":%d,"name":"user-%d","tags":["a","b%d"]}`+"\n", i, i%7, i%3)
			}
			base := newPipe(t)
			base.write("1.json", data.String())
			base.mustRun(nil)
			want := base.rows()
			// id, name, tags' element and the rescued data column.
			const chunks = 4
			if got := codecsOf(t, base); !reflect.DeepEqual(got, map[format.CompressionCodec]int{format.Snappy: chunks}) {
				t.Errorf("default: codecs %v, want snappy for the %d column chunks", got, chunks)
			}
			for _, c := range []struct {
				value string
				codec format.CompressionCodec
			}{
				{"snappy", format.Snappy}, {"ZSTD", format.Zstd}, {"gzip", format.Gzip},
				{"lz4", format.Lz4Raw}, {"uncompressed", format.Uncompressed},
			} {
				p := newPipe(t)
				p.write("1.json", data.String())
				p.mustRun(map[string]string{"parquet.compression.codec": c.value})
				if got := codecsOf(t, p); !reflect.DeepEqual(got, map[format.CompressionCodec]int{c.codec: chunks}) {
					t.Errorf("%s: codecs %v, want %v for the %d column chunks", c.value, got, c.codec, chunks)
				}
				if c.codec == format.Lz4Raw {
					// Tributary's reader refuses LZ4_RAW (parquet-go v0.32
					// misreads it, see pqread.checkCodecs): arrow-go reads
					// the file instead, against the default run's.
					if got, w := arrowTable(t, p), arrowTable(t, base); got != w || !strings.Contains(w, "user-6") {
						t.Errorf("%s: rows differ from the default run:\n%s\nwant\n%s", c.value, got, w)
					}
					continue
				}
				if got := p.rows(); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: rows differ from the default run", c.value)
				}
			}
			p := newPipe(t)
			p.write("1.json", data.String())
			if _, err := p.run(map[string]string{"parquet.compression.codec": "brotli2"}); err == nil || !strings.Contains(err.Error(), "parquet.compression.codec") {
				t.Errorf("unknown codec: %v, want an error naming the option", err)
			}
		}},
	}
}

// codecsOf counts the column chunks of the table's data files by codec.
func codecsOf(t *testing.T, p *pipe) map[format.CompressionCodec]int {
	t.Helper()
	out := map[format.CompressionCodec]int{}
	for a := range p.snapshot().Files() {
		key, err := delta.ObjectKey(a.Path)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(p.table, filepath.FromSlash(key)))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		for _, rg := range f.Metadata().RowGroups {
			for _, cc := range rg.Columns {
				out[cc.MetaData.Codec]++
			}
		}
	}
	return out
}

// arrowTable is the content of the table's one data file as arrow-go reads
// it, printed.
func arrowTable(t *testing.T, p *pipe) string {
	t.Helper()
	var out []string
	for a := range p.snapshot().Files() {
		key, err := delta.ObjectKey(a.Path)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(p.table, filepath.FromSlash(key)))
		if err != nil {
			t.Fatal(err)
		}
		tbl := arrowtest.ReadTable(t, data)
		for i := range int(tbl.NumCols()) {
			for _, ch := range tbl.Column(i).Data().Chunks() {
				out = append(out, tbl.Column(i).Name()+": "+ch.String())
			}
		}
		tbl.Release()
	}
	return strings.Join(out, "\n")
}
