package convert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// TestWholeFileMapAt: a file read whole is, for CSV (inPlaceWhole), a
// fileformat.Mapper over its bytes: windows from any offset (fewer at the end, none past it), the
// first MapAt refused once Read has read, Read going on where Seek puts
// it, and nothing left after Close.
func TestWholeFileMapAt(t *testing.T) {
	data := []byte("0123456789")
	tests := []struct {
		name    string
		readN   int // bytes read with Read first
		off     int64
		n       int
		want    string
		refused bool
	}{
		{name: "whole", off: 0, n: 1 << 20, want: "0123456789"},
		{name: "a window", off: 2, n: 3, want: "234"},
		{name: "the end", off: 8, n: 5, want: "89"},
		{name: "past the end", off: 12, n: 5, want: ""},
		{name: "empty window", off: 3, n: 0, want: ""},
		{name: "after a read", readN: 1, off: 0, n: 4, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := new([]byte)
			*buf = append([]byte(nil), data...)
			w := newWholeFile(buf, *buf, nil)
			var m fileformat.Mapper = inPlaceWhole{w}
			if tt.readN > 0 {
				if _, err := io.ReadFull(w, make([]byte, tt.readN)); err != nil {
					t.Fatal(err)
				}
			}
			b, err := m.MapAt(tt.off, tt.n)
			if tt.refused {
				if !errors.Is(err, errReadAlready) {
					t.Fatalf("MapAt after a read: %q, %v", b, err)
				}
				return
			}
			if err != nil || string(b) != tt.want {
				t.Fatalf("MapAt(%d, %d) = %q, %v; want %q", tt.off, tt.n, b, err, tt.want)
			}
			m.Unmap()
			if _, err := m.Seek(5, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			rest, err := io.ReadAll(m)
			if err != nil || string(rest) != "56789" {
				t.Fatalf("Read after Seek(5) = %q, %v", rest, err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if b, err := m.MapAt(0, 4); len(b) != 0 || err != nil {
				t.Fatalf("MapAt after Close = %q, %v", b, err)
			}
		})
	}
}

// FuzzWholeFileWindows: reading a file read whole by successive MapAt
// windows of any size gives its bytes.
func FuzzWholeFileWindows(f *testing.F) {
	f.Add([]byte("a,b\n1,2\n"), 3)
	f.Add([]byte(""), 1)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		n = 1 + (n&0x7fffffff)%(len(data)+2)
		buf := new([]byte)
		*buf = append([]byte(nil), data...)
		w := inPlaceWhole{newWholeFile(buf, *buf, nil)}
		var got []byte
		for off := int64(0); ; off += int64(n) {
			b, err := w.MapAt(off, n)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, b...)
			if len(b) < n {
				break
			}
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("windows of %d gave %q, want %q", n, got, data)
		}
	})
}

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
		buf := new([]byte)
		*buf = []byte(data)
		s := Source{Format: csv}
		src, err := s.decompress("f.csv", s.inPlaceIf(newWholeFile(buf, *buf, nil)))
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
