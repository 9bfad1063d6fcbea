package convert

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/ingest/convert/wholeread"
	"github.com/tributary-io/tributary/core/schema"
)

// TestCSVReadInPlaceAsStreamed: random CSV files (quoted values with
// delimiters, quotes and line breaks, CRLF, blank lines, short and long
// rows, non-ASCII) read by the CSV reader from a file read whole (in
// place: fileformat.Mapper) give the rows, errors and stats that reading
// the same bytes as a stream gives.
func TestCSVReadInPlaceAsStreamed(t *testing.T) {
	csv, err := formats.Lookup("csv")
	if err != nil {
		t.Fatal(err)
	}
	sch := &schema.StructType{Fields: []schema.Field{
		{Name: "a", Type: schema.String, Nullable: true},
		{Name: "b", Type: schema.Long, Nullable: true},
		{Name: "c", Type: schema.String, Nullable: true},
		{Name: "_rescued_data", Type: schema.String, Nullable: true},
	}}
	read := func(r io.Reader) (string, error) {
		rr, err := csv.Open(context.Background(), r, sch, formats.ReadOptions{FilePath: "f.csv", RescuedDataColumn: "_rescued_data",
			Options: map[string]string{"header": "true"}})
		if err != nil {
			return "", err
		}
		defer rr.Close()
		var out strings.Builder
		for {
			row, err := rr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				fmt.Fprintf(&out, "error %v\n", err)
				break
			}
			fmt.Fprintf(&out, "%#v\n", row)
		}
		fmt.Fprintf(&out, "%+v\n", rr.Stats())
		return out.String(), nil
	}
	dir := t.TempDir()
	values := []string{"x", "", "12", "-7", `"q,uoted"`, `"line` + "\n" + `break"`, `"say ""hi"""`, "é", "9999999999999999999999", "a b"}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 3))
		var b strings.Builder
		eol := []string{"\n", "\r\n"}[rng.IntN(2)]
		b.WriteString("a,b,c" + eol)
		for range rng.IntN(40) {
			if rng.IntN(15) == 0 {
				b.WriteString(eol) // blank line
				continue
			}
			cols := 3
			switch rng.IntN(10) {
			case 0:
				cols = 2
			case 1:
				cols = 4
			}
			for c := range cols {
				if c > 0 {
					b.WriteByte(',')
				}
				b.WriteString(values[rng.IntN(len(values))])
			}
			b.WriteString(eol)
		}
		data := b.String()
		if rng.IntN(4) == 0 {
			data = strings.TrimSuffix(data, eol) // no final line break
		}
		want, werr := read(io.NopCloser(strings.NewReader(data)))
		path := filepath.Join(dir, fmt.Sprintf("f%d.csv", seed))
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		s := Source{Format: csv}
		src, err := s.decompress("f.csv", s.inPlaceIf(wholeread.FromFile(f, int64(len(data)))))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := src.(fileformat.Mapper); !ok {
			t.Fatalf("a file read whole is not read in place (%T)", src)
		}
		got, gerr := read(src)
		if got != want || (gerr == nil) != (werr == nil) {
			t.Fatalf("seed %d: %q\nin place:\n%s%v\nstreamed:\n%s%v", seed, data, got, gerr, want, werr)
		}
	}
}

// TestSmallFileInPlaceByFormat: a small local file read whole reaches the
// reader of a format that reads small files in place
// (formats.SmallInPlace: CSV) as a fileformat.Mapper over its bytes, and
// the reader of any other format (JSON) as a plain reader; both read the
// file's bytes.
func TestSmallFileInPlaceByFormat(t *testing.T) {
	dir := t.TempDir()
	data := "a,b\n1,2\n"
	if err := os.WriteFile(filepath.Join(dir, "f.csv"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		format string
		mapped bool
	}{{"csv", true}, {"json", false}} {
		f, err := formats.Lookup(tt.format)
		if err != nil {
			t.Fatal(err)
		}
		s := Source{Store: localDir{dir: dir}, Format: f}
		r, _, err := s.open(context.Background(), "f.csv", int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if _, mapped := r.(fileformat.Mapper); mapped != tt.mapped {
			t.Errorf("%s: a Mapper %v, want %v", tt.format, mapped, tt.mapped)
		}
		if b, err := io.ReadAll(r); err != nil || string(b) != data {
			t.Errorf("%s: read %q, %v", tt.format, b, err)
		}
		r.Close()
	}
}
