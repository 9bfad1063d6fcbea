package parquetfmt

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/columnar"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fileOf opens a testdata file as a fileformat.File.
func fileOf(t testing.TB, name string) fileformat.File {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return bytesFile{bytes.NewReader(b)}
}

type bytesFile struct{ *bytes.Reader }

func (b bytesFile) Size() int64 { return b.Reader.Size() }

// infer runs the inference over files with opts.
func infer(t *testing.T, opts fileformat.InferOptions, names ...string) (*schema.StructType, error) {
	t.Helper()
	inf := Format{}.NewInferrer(opts).(fileformat.RandomAccessInferrer)
	for _, n := range names {
		if inf.Full() {
			break
		}
		if err := inf.AddFile(context.Background(), n, fileOf(t, n)); err != nil {
			return nil, err
		}
	}
	return inf.Schema(), nil
}

// readAll reads a testdata file as rows of s.
func readAll(t *testing.T, name string, s *schema.StructType, opts fileformat.ReadOptions) ([][]any, fileformat.ReadStats, error) {
	t.Helper()
	rr, err := Format{}.OpenFile(context.Background(), fileOf(t, name), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	var rows [][]any
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			return rows, rr.Stats(), nil
		}
		if err != nil {
			return rows, rr.Stats(), err
		}
		rows = append(rows, row)
	}
}

// TestGolden reads every golden input file with its inferred schema and
// compares the schema and the rows (as JSON) with testdata/<name>.golden.
func TestGolden(t *testing.T) {
	for _, name := range []string{"types.parquet", "legacy.parquet", "a.parquet", "b.parquet"} {
		t.Run(name, func(t *testing.T) {
			s, err := infer(t, fileformat.InferOptions{RescuedDataColumn: fileformat.DefaultRescuedDataColumn}, name)
			if err != nil {
				t.Fatal(err)
			}
			rows, st, err := readAll(t, name, s, fileformat.ReadOptions{FilePath: name, RescuedDataColumn: fileformat.DefaultRescuedDataColumn})
			if err != nil {
				t.Fatal(err)
			}
			if st.RowsRescued != 0 || len(st.UnknownFields) != 0 || len(st.MismatchedFields) != 0 {
				t.Errorf("stats %+v: reading a file with its own schema rescues nothing", st)
			}
			var b strings.Builder
			b.WriteString(s.String() + "\n")
			for _, r := range rows {
				b.Write(columnar.AppendValueJSON(nil, r, s))
				b.WriteByte('\n')
			}
			golden := filepath.Join("testdata", strings.TrimSuffix(name, ".parquet")+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update creates it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
			}
		})
	}
}

func TestMergeSchema(t *testing.T) {
	tests := []struct {
		name  string
		merge map[string]string
		want  string
	}{
		{"first file's footer without mergeSchema", nil, "struct<id:integer,name:string,_rescued_data:string>"},
		{"mergeSchema=false", map[string]string{"mergeSchema": "false"}, "struct<id:integer,name:string,_rescued_data:string>"},
		{"mergeSchema=true unions the footers", map[string]string{"MERGESCHEMA": "true"}, "struct<id:long,name:string,age:integer,_rescued_data:string>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := infer(t, fileformat.InferOptions{RescuedDataColumn: "_rescued_data", Options: tt.merge}, "a.parquet", "b.parquet")
			if err != nil {
				t.Fatal(err)
			}
			if s.String() != tt.want {
				t.Errorf("schema %s, want %s", s, tt.want)
			}
		})
	}
}

func TestHints(t *testing.T) {
	hints, err := schema.ParseDDL("id BIGINT, extra STRING")
	if err != nil {
		t.Fatal(err)
	}
	s, err := infer(t, fileformat.InferOptions{Hints: hints}, "a.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.String(), "struct<id:long,name:string,extra:string>"; got != want {
		t.Fatalf("schema %s, want %s", got, want)
	}
	rows, _, err := readAll(t, "a.parquet", s, fileformat.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]any{{int64(1), "John", nil}, {int64(2), "Mary", nil}}; !reflect.DeepEqual(rows, want) {
		t.Errorf("rows %v, want %v (int widened to the hinted long)", rows, want)
	}
}

// TestRescue reads b.parquet (id long, name, age) with a.parquet's schema
// (id int, name): the long id does not fit and age is unknown; both are
// rescued, or dropped without a rescued data column.
func TestRescue(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "id", Type: schema.Integer, Nullable: true},
		{Name: "NAME", Type: schema.String, Nullable: true},
		{Name: "_rescued_data", Type: schema.String, Nullable: true},
	}}
	tests := []struct {
		name  string
		opts  fileformat.ReadOptions
		want  [][]any
		stats fileformat.ReadStats
	}{
		{"rescue, case-sensitive", fileformat.ReadOptions{FilePath: "s3://b/b.parquet", RescuedDataColumn: "_rescued_data"},
			[][]any{{nil, nil, `{"age":25,"id":2147483648,"name":"Bob","_file_path":"s3://b/b.parquet"}`}},
			fileformat.ReadStats{RowsRead: 1, RowsRescued: 1, UnknownFields: []string{"name", "age"}, MismatchedFields: []string{"id"}}},
		{"rescue, case-insensitive", fileformat.ReadOptions{FilePath: "f", RescuedDataColumn: "_rescued_data", CaseInsensitive: true},
			[][]any{{nil, "Bob", `{"age":25,"id":2147483648,"_file_path":"f"}`}},
			fileformat.ReadStats{RowsRead: 1, RowsRescued: 1, UnknownFields: []string{"age"}, MismatchedFields: []string{"id"}}},
		{"no rescue", fileformat.ReadOptions{FilePath: "f"},
			[][]any{{nil, "Bob", nil}},
			fileformat.ReadStats{RowsRead: 1, ValuesDropped: 2, UnknownFields: []string{"age"}, MismatchedFields: []string{"id"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, st, err := readAll(t, "b.parquet", s, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rows, tt.want) {
				t.Errorf("rows %q, want %q", rows, tt.want)
			}
			if !reflect.DeepEqual(st, tt.stats) {
				t.Errorf("stats %+v, want %+v", st, tt.stats)
			}
		})
	}
}

// TestCorrupt: a file that is not Parquet fails the first Next with
// parquetio.ErrCorrupt (a corrupt file), and the inference names the file.
func TestCorrupt(t *testing.T) {
	good, err := os.ReadFile("testdata/a.parquet")
	if err != nil {
		t.Fatal(err)
	}
	s := &schema.StructType{Fields: []schema.Field{{Name: "id", Type: schema.Integer, Nullable: true}}}
	for name, data := range map[string][]byte{
		"empty": {}, "json": []byte(`{"id":1}` + "\n"), "truncated": good[:len(good)-10],
		"bad magic": append(bytes.Clone(good[:len(good)-4]), "PAR2"...), "no footer": append([]byte("PAR1"), good[len(good)-8:]...),
	} {
		t.Run(name, func(t *testing.T) {
			rr, err := Format{}.OpenFile(context.Background(), bytesFile{bytes.NewReader(data)}, s, fileformat.ReadOptions{})
			if err != nil {
				t.Fatalf("OpenFile: %v, want the error from Next", err)
			}
			if _, err := rr.Next(); !errors.Is(err, parquetio.ErrCorrupt) {
				t.Errorf("Next: %v, want ErrCorrupt", err)
			}
			inf := Format{}.NewInferrer(fileformat.InferOptions{})
			if err := inf.Add(context.Background(), "x/bad.parquet", bytes.NewReader(data)); !errors.Is(err, parquetio.ErrCorrupt) || !strings.Contains(err.Error(), "x/bad.parquet") {
				t.Errorf("Add: %v, want ErrCorrupt naming the file", err)
			}
		})
	}
}

// TestOpenStream: Format.Open (a stream) reads what OpenFile reads.
func TestOpenStream(t *testing.T) {
	s, err := infer(t, fileformat.InferOptions{}, "types.parquet")
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := readAll(t, "types.parquet", s, fileformat.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile("testdata/types.parquet")
	rr, err := Format{}.Open(context.Background(), bytes.NewReader(b), s, fileformat.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, row)
	}
	if len(got) != 4 || !reflect.DeepEqual(fmtRows(s, got), fmtRows(s, want)) {
		t.Errorf("Open read %d rows, differing from OpenFile's %d", len(got), len(want))
	}
}

func fmtRows(s *schema.StructType, rows [][]any) string {
	var b []byte
	for _, r := range rows {
		b = columnar.AppendValueJSON(b, r, s)
	}
	return string(b)
}

func FuzzOpenFile(f *testing.F) {
	for _, n := range []string{"types.parquet", "legacy.parquet", "a.parquet", "b.parquet"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
		c := bytes.Clone(b)
		c[len(c)-12] ^= 0x55
		f.Add(c)
	}
	f.Add([]byte("PAR1PAR1"))
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "id", Type: schema.Integer, Nullable: true},
		{Name: "s", Type: schema.String, Nullable: true},
		{Name: "_rescued_data", Type: schema.String, Nullable: true},
	}}
	f.Fuzz(func(t *testing.T, data []byte) {
		file := bytesFile{bytes.NewReader(data)}
		if n, err := parquetio.NumRows(file, file.Size()); err == nil && n > 100_000 {
			return
		}
		inf := Format{}.NewInferrer(fileformat.InferOptions{RescuedDataColumn: "_rescued_data"}).(fileformat.RandomAccessInferrer)
		if err := inf.AddFile(context.Background(), "f", file); err == nil {
			_ = inf.Schema()
		}
		rr, err := Format{}.OpenFile(context.Background(), file, s, fileformat.ReadOptions{RescuedDataColumn: "_rescued_data"})
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Close()
		for range 1_000_000 {
			if _, err := rr.Next(); err != nil {
				return
			}
		}
	})
}
