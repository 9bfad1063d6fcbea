package orcfmt

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/columnar"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

type bytesFile struct{ *bytes.Reader }

func (b bytesFile) Size() int64 { return b.Reader.Size() }

func fileOf(t testing.TB, name string) fileformat.File {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return bytesFile{bytes.NewReader(b)}
}

func inferSchema(t *testing.T, names ...string) (*schema.StructType, error) {
	t.Helper()
	inf := Format{}.NewInferrer(fileformat.InferOptions{Options: map[string]string{"mergeSchema": "true"}}).(fileformat.RandomAccessInferrer)
	for _, n := range names {
		if err := inf.AddFile(context.Background(), n, fileOf(t, n)); err != nil {
			return nil, err
		}
	}
	return inf.Schema(), nil
}

func readAll(t *testing.T, f fileformat.File, s *schema.StructType) ([][]any, error) {
	t.Helper()
	rr, err := Format{}.OpenFile(context.Background(), f, s, fileformat.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	var rows [][]any
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		rows = append(rows, row)
	}
}

// norm decodes JSON with numbers as exact rationals, so that 1e+10 and
// 10000000000.0 compare equal.
func norm(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return rat(v)
}

func rat(v any) any {
	switch x := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		if !ok {
			return string(x)
		}
		return r.RatString()
	case map[string]any:
		for k, e := range x {
			x[k] = rat(e)
		}
	case []any:
		for i, e := range x {
			x[i] = rat(e)
		}
	}
	return v
}

const typesSchema = "struct<b:boolean,i8:byte,i16:short,i32:integer,i64:long,f32:float,f64:double,s:string,bin:binary,d:date,ts:timestamp,tsz:timestamp,dec:decimal(10,2),dec38:decimal(38,10)>"

// TestGolden reads each fixture written by pyarrow.orc (testdata/gen.py)
// and compares every value with the rows pyarrow wrote (<name>.jsonl).
func TestGolden(t *testing.T) {
	cases := []struct{ file, expect, schema string }{
		{"types_uncompressed.orc", "types_uncompressed.jsonl", typesSchema},
		{"types_zlib.orc", "types_uncompressed.jsonl", typesSchema},
		{"types_snappy.orc", "types_uncompressed.jsonl", typesSchema},
		{"types_zstd.orc", "types_uncompressed.jsonl", typesSchema},
		{"types_lz4.orc", "types_uncompressed.jsonl", typesSchema},
		{"types_spark.orc", "types_spark.jsonl", strings.Replace(typesSchema, ",tsz:timestamp", "", 1)},
		{"nested.orc", "nested.jsonl", "struct<id:long,st:struct<a:long,b:string>,li:array<long>,m:map<string,integer>,ls:array<struct<a:long,b:string>>,deep:struct<in:struct<v:array<double>>>>"},
		{"stripes.orc", "stripes.jsonl", "struct<seq:long,down:long,rep:integer,rnd:long,big:long,small:short,word:string,uniq:string,flag:boolean,tiny:byte,tinyrep:byte,on:boolean,ts:timestamp,dec:decimal(12,3)>"},
		{"stripes_v1.orc", "stripes.jsonl", "struct<seq:long,down:long,rep:integer,rnd:long,big:long,small:short,word:string,uniq:string,flag:boolean,tiny:byte,tinyrep:byte,on:boolean,ts:timestamp,dec:decimal(12,3)>"},
		{"empty.orc", "empty.jsonl", typesSchema},
		{"a.orc", "a.jsonl", "struct<id:integer,name:string>"},
		{"b.orc", "b.jsonl", "struct<id:long,name:string,age:integer>"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			s, err := inferSchema(t, c.file)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.String(); got != c.schema {
				t.Fatalf("schema\n got %s\nwant %s", got, c.schema)
			}
			rows, err := readAll(t, fileOf(t, c.file), s)
			if err != nil {
				t.Fatal(err)
			}
			ef, err := os.Open(filepath.Join("testdata", c.expect))
			if err != nil {
				t.Fatal(err)
			}
			defer ef.Close()
			sc := bufio.NewScanner(ef)
			sc.Buffer(nil, 1<<20)
			i := 0
			for ; sc.Scan(); i++ {
				if i >= len(rows) {
					t.Fatalf("%d rows read, more expected", len(rows))
				}
				got := columnar.AppendValueJSON(nil, rows[i], s)
				if g, w := norm(t, got), norm(t, sc.Bytes()); !reflect.DeepEqual(g, w) {
					t.Fatalf("row %d\n got %s\nwant %s", i, got, sc.Bytes())
				}
			}
			if i != len(rows) {
				t.Fatalf("%d rows read, %d expected", len(rows), i)
			}
		})
	}
}

// TestStripes checks that the multi-stripe fixture really has several
// stripes, so that TestGolden crosses stripe boundaries.
func TestStripes(t *testing.T) {
	tl, err := readTail(fileOf(t, "stripes_v1.orc"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.stripes) < 2 {
		t.Fatalf("%d stripes", len(tl.stripes))
	}
}

// TestCorrupt: damaged files are errors wrapping ErrCorrupt, from the
// footer (inference) or from the first Next, never panics.
func TestCorrupt(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "types_zlib.orc"))
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 0xff
		return b
	}
	cases := map[string][]byte{
		"empty":     {},
		"not orc":   []byte("{\"a\":1}\n"),
		"truncated": good[:len(good)/2],
		"ps length": flip(len(good) - 1),
		"magic":     flip(len(good) - 2),
		"data":      flip(10),
		"footer":    flip(len(good) - 40),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			f := bytesFile{bytes.NewReader(b)}
			_, _, ferr := footer(f)
			rows, rerr := readAll(t, f, &schema.StructType{})
			if ferr == nil && rerr == nil {
				// A flipped byte may land in padding or statistics;
				// the rows must then still be complete.
				if len(rows) != 6 {
					t.Fatalf("no error but %d rows", len(rows))
				}
				return
			}
			for _, err := range []error{ferr, rerr} {
				if err != nil && !errors.Is(err, ErrCorrupt) {
					t.Fatalf("error does not wrap ErrCorrupt: %v", err)
				}
			}
		})
	}
}

// TestUnion: a union column is refused as unsupported, naming the type.
func TestUnion(t *testing.T) {
	tl := &tail{types: []orcType{{kind: kStruct, subtypes: []int{1}, names: []string{"u"}}, {kind: kUnion, subtypes: []int{2}}, {kind: kLong}}}
	_, err := tl.deltaType(0)
	if !errors.Is(err, ErrUnsupported) || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "union") {
		t.Fatalf("got %v", err)
	}
}

// FuzzRead feeds arbitrary bytes (seeded with the fixtures) to the footer
// and the reader: errors are fine, panics and hangs are not.
func FuzzRead(f *testing.F) {
	for _, n := range []string{"types_zlib.orc", "types_snappy.orc", "types_zstd.orc", "nested.orc", "empty.orc"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file := bytesFile{bytes.NewReader(b)}
		s, _, err := footer(file)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("footer error does not wrap ErrCorrupt: %v", err)
			}
			s = &schema.StructType{}
		}
		rr, err := Format{}.OpenFile(context.Background(), file, columnar.Nullable(s).(*schema.StructType), fileformat.ReadOptions{})
		if err != nil {
			return
		}
		defer rr.Close()
		for i := 0; i < 100000; i++ {
			if _, err := rr.Next(); err != nil {
				return
			}
		}
	})
}
