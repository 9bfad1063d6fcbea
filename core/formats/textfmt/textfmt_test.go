package textfmt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// readAll reads data with the options and returns the values; oneByte
// feeds the reader one byte at a time (separators straddle reads).
func readAll(t testing.TB, data []byte, opts fileformat.ReadOptions, oneByte bool) ([]string, error) {
	var r io.Reader = bytes.NewReader(data)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	rr, err := Format{}.Open(context.Background(), r, Format{}.Schema(), opts)
	if err != nil {
		return nil, err
	}
	defer rr.Close()
	var out []string
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, row[0].(string))
	}
}

func TestRead(t *testing.T) {
	utf16, _ := func() ([]byte, error) {
		var b []byte
		for _, c := range "x\ny" {
			b = append(b, byte(c), 0)
		}
		return b, nil
	}()
	for _, tc := range []struct {
		name string
		data string
		opts fileformat.ReadOptions
		want []string
	}{
		{"empty file", "", fileformat.ReadOptions{}, nil},
		{"lf", "a\nb\n", fileformat.ReadOptions{}, []string{"a", "b"}},
		{"no final end", "a\nb", fileformat.ReadOptions{}, []string{"a", "b"}},
		{"crlf and cr", "a\r\nb\rc\n", fileformat.ReadOptions{}, []string{"a", "b", "c"}},
		{"empty lines kept", "a\n\n\nb\n\n", fileformat.ReadOptions{}, []string{"a", "", "", "b", ""}},
		{"cr cr", "a\r\rb", fileformat.ReadOptions{}, []string{"a", "", "b"}},
		{"bom dropped", "\uFEFFa\nb", fileformat.ReadOptions{}, []string{"a", "b"}},
		{"lineSep", "a||b|c||", fileformat.ReadOptions{Text: fileformat.TextOptions{LineSep: "||"}}, []string{"a", "b|c"}},
		{"lineSep keeps newlines", "a\nb;c", fileformat.ReadOptions{Text: fileformat.TextOptions{LineSep: ";"}}, []string{"a\nb", "c"}},
		{"wholetext", "a\nb\n", fileformat.ReadOptions{Options: map[string]string{"wholeText": "true"}}, []string{"a\nb\n"}},
		{"wholetext empty file", "", fileformat.ReadOptions{Options: map[string]string{"wholeText": "true"}}, []string{""}},
		{"latin1", "caf\xe9\n", fileformat.ReadOptions{Text: fileformat.TextOptions{Encoding: "ISO-8859-1"}}, []string{"café"}},
		{"invalid utf8 replaced", "a\xffb\n", fileformat.ReadOptions{}, []string{"a\uFFFDb"}},
		{"utf16le", string(utf16), fileformat.ReadOptions{Text: fileformat.TextOptions{Encoding: "UTF-16LE"}}, []string{"x", "y"}},
	} {
		for _, oneByte := range []bool{false, true} {
			got, err := readAll(t, []byte(tc.data), tc.opts, oneByte)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("%s (oneByte %v): %q, %v; want %q", tc.name, oneByte, got, err, tc.want)
			}
		}
	}
}

func TestLongLine(t *testing.T) {
	long := strings.Repeat("x", 3*bufSize+7)
	got, err := readAll(t, []byte("a\n"+long+"\r\nb"), fileformat.ReadOptions{}, false)
	if err != nil || !slices.Equal(got, []string{"a", long, "b"}) {
		t.Errorf("long line: %d values, %v", len(got), err)
	}
}

func TestOpenErrors(t *testing.T) {
	bad := &schema.StructType{Fields: []schema.Field{{Name: "value", Type: schema.Long}}}
	if _, err := (Format{}).Open(context.Background(), strings.NewReader(""), bad, fileformat.ReadOptions{}); !errors.Is(err, fileformat.ErrReadSchema) {
		t.Errorf("long value column: %v, want ErrReadSchema", err)
	}
	if _, err := (Format{}).Open(context.Background(), strings.NewReader(""), Format{}.Schema(), fileformat.ReadOptions{Options: map[string]string{"wholetext": "maybe"}}); !errors.Is(err, fileformat.ErrBadOption) {
		t.Errorf("wholetext=maybe: %v, want ErrBadOption", err)
	}
	if _, err := (Format{}).Open(context.Background(), strings.NewReader(""), Format{}.Schema(), fileformat.ReadOptions{Text: fileformat.TextOptions{Encoding: "nope"}}); !errors.Is(err, fileformat.ErrBadOption) {
		t.Errorf("encoding=nope: %v, want ErrBadOption", err)
	}
}

func TestFillsValueColumnByName(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{{Name: "p", Type: schema.String}, {Name: "VALUE", Type: schema.String}}}
	rr, err := Format{}.Open(context.Background(), strings.NewReader("x\n"), s, fileformat.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	row, err := rr.Next()
	if err != nil || row[0] != nil || row[1] != "x" {
		t.Errorf("row %v, %v", row, err)
	}
	if st := rr.Stats(); st.RowsRead != 1 {
		t.Errorf("RowsRead %d", st.RowsRead)
	}
}

func TestInferrerIsFixed(t *testing.T) {
	inf := Format{}.NewInferrer(fileformat.InferOptions{})
	if err := inf.Add(context.Background(), "f", strings.NewReader("anything")); err != nil {
		t.Fatal(err)
	}
	if !schema.Equal(inf.Schema(), Format{}.Schema()) || inf.Sampled().Files != 1 || inf.Full() {
		t.Errorf("schema %v, sample %+v", inf.Schema(), inf.Sampled())
	}
}

// FuzzSplit checks the splitter against a plain reference split for any
// input and separator, whatever the read sizes.
func FuzzSplit(f *testing.F) {
	f.Add([]byte("a\r\nb\rc\n\n"), "")
	f.Add([]byte("a||b|"), "||")
	f.Add([]byte("\xef\xbb\xbfx"), "")
	f.Fuzz(func(t *testing.T, data []byte, sep string) {
		opts := fileformat.ReadOptions{Text: fileformat.TextOptions{LineSep: sep}}
		a, errA := readAll(t, data, opts, false)
		b, errB := readAll(t, data, opts, true)
		if errA != nil || errB != nil || !slices.Equal(a, b) {
			t.Fatalf("split differs by read size: %q %v / %q %v", a, errA, b, errB)
		}
		want := reference(data, sep)
		if !slices.Equal(a, want) {
			t.Fatalf("split %q, want %q", a, want)
		}
	})
}

// reference splits data as Hadoop's LineReader does, the simple way.
func reference(data []byte, sep string) []string {
	s := strings.TrimPrefix(string(data), "\uFEFF")
	if len(data) >= 3 && !bytes.HasPrefix(data, bom) {
		s = string(data)
	}
	var parts []string
	if sep == "" {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
		parts = strings.Split(s, "\n")
	} else {
		parts = strings.Split(s, sep)
	}
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		parts[i] = strings.ToValidUTF8(p, "\uFFFD")
	}
	return parts
}
