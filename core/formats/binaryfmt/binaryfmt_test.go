package binaryfmt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

func readOne(t *testing.T, f Format, r io.Reader, s *schema.StructType, opts fileformat.ReadOptions) ([]any, error) {
	t.Helper()
	rr, err := f.Open(context.Background(), r, s, opts)
	if err != nil {
		return nil, err
	}
	defer rr.Close()
	row, err := rr.Next()
	if err != nil {
		return nil, err
	}
	if _, err := rr.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("second Next: %v, want io.EOF", err)
	}
	return row, nil
}

func TestRead(t *testing.T) {
	mod := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.FixedZone("x", 3600))
	opts := fileformat.ReadOptions{FilePath: "s3://b/k/x.png", ModTime: mod}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", []byte{}},
		{"bytes", []byte{0, 1, 2, 0xff, '\n'}},
		{"gzip magic kept as is", []byte{0x1f, 0x8b, 8, 0}},
		{"large", bytes.Repeat([]byte("abc"), 100000)},
	} {
		row, err := readOne(t, Format{}, iotest.HalfReader(bytes.NewReader(tc.data)), Format{}.Schema(), opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if row[0] != "s3://b/k/x.png" || !row[1].(time.Time).Equal(mod) || row[1].(time.Time).Location() != time.UTC || row[2] != int64(len(tc.data)) || !bytes.Equal(row[3].([]byte), tc.data) || row[3] == nil {
			t.Errorf("%s: row %v", tc.name, row[:3])
		}
	}
}

func TestTooLarge(t *testing.T) {
	f := Format{MaxLength: 4}
	if _, err := readOne(t, f, strings.NewReader("12345"), f.Schema(), fileformat.ReadOptions{FilePath: "big.bin"}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "big.bin") {
		t.Errorf("5 bytes over a 4-byte limit: %v, want ErrTooLarge naming the file", err)
	}
	if row, err := readOne(t, f, strings.NewReader("1234"), f.Schema(), fileformat.ReadOptions{}); err != nil || row[2] != int64(4) {
		t.Errorf("4 bytes: %v, %v", row, err)
	}
}

func TestSchemaByName(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{{Name: "part", Type: schema.String}, {Name: "LENGTH", Type: schema.Long}, {Name: "Content", Type: schema.Binary}}}
	row, err := readOne(t, Format{}, strings.NewReader("xy"), s, fileformat.ReadOptions{})
	if err != nil || row[0] != nil || row[1] != int64(2) || string(row[2].([]byte)) != "xy" {
		t.Errorf("row %v, %v", row, err)
	}
	bad := &schema.StructType{Fields: []schema.Field{{Name: "length", Type: schema.Integer}}}
	if _, err := (Format{}).Open(context.Background(), strings.NewReader(""), bad, fileformat.ReadOptions{}); !errors.Is(err, fileformat.ErrReadSchema) {
		t.Errorf("integer length: %v, want ErrReadSchema", err)
	}
}

func TestFixed(t *testing.T) {
	var f Format
	if !f.Raw() || f.Name() != "binaryFile" {
		t.Error("binaryFile must read raw bytes")
	}
	var got []string
	for _, fld := range f.Schema().Fields {
		got = append(got, fmt.Sprintf("%s %s %v", fld.Name, fld.Type, fld.Nullable))
	}
	want := []string{"path string false", "modificationTime timestamp false", "length long false", "content binary true"}
	if !slices.Equal(got, want) {
		t.Errorf("schema %q, want Spark's %q", got, want)
	}
	inf := f.NewInferrer(fileformat.InferOptions{})
	if err := inf.Add(context.Background(), "x", strings.NewReader("z")); err != nil || !schema.Equal(inf.Schema(), f.Schema()) {
		t.Errorf("inferrer: %v %v", err, inf.Schema())
	}
}

// FuzzRead: any bytes come back as they are, with their length.
func FuzzRead(f *testing.F) {
	f.Add([]byte("x"), int64(10))
	f.Add([]byte{}, int64(1))
	f.Fuzz(func(t *testing.T, data []byte, max int64) {
		fm := Format{MaxLength: max}
		row, err := readOne(t, fm, bytes.NewReader(data), fm.Schema(), fileformat.ReadOptions{})
		limit := max
		if limit <= 0 {
			limit = MaxLength
		}
		if int64(len(data)) > limit {
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("len %d > %d: %v", len(data), limit, err)
			}
			return
		}
		if err != nil || !bytes.Equal(row[3].([]byte), data) || row[2] != int64(len(data)) {
			t.Fatalf("row %v, %v", row, err)
		}
	})
}
