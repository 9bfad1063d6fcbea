package jsonfmt

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// TestBadRecordsByMode pins what each parse mode does with Spark's bad
// records: malformed lines always, values that do not fit their column
// only when rescue is disabled (Databricks: with the rescued data column,
// type mismatches are not bad records).
func TestBadRecordsByMode(t *testing.T) {
	const data = `{"a":1,"b":"x"}` + "\n" + `{"a":"two","b":"y"}` + "\n" + `{"a":` + "\n" + `{"a":4,"b":"z"}` + "\n"
	rescue := fileformat.DefaultRescuedDataColumn
	tests := []struct {
		name     string
		ddl      string
		opts     fileformat.ReadOptions
		want     [][]any
		corrupt  int64
		failLine string // FAILFAST: the line the error names
	}{
		{name: "permissive without rescue keeps the mismatched record, text in the corrupt column",
			ddl:  "a BIGINT, b STRING, _corrupt_record STRING",
			opts: fileformat.ReadOptions{},
			want: [][]any{{int64(1), "x", nil}, {nil, "y", `{"a":"two","b":"y"}`}, {nil, nil, `{"a":`}, {int64(4), "z", nil}}, corrupt: 2},
		{name: "dropmalformed without rescue drops the mismatched record",
			ddl:  "a BIGINT, b STRING",
			opts: fileformat.ReadOptions{Mode: fileformat.DropMalformed},
			want: [][]any{{int64(1), "x"}, {int64(4), "z"}}, corrupt: 2},
		{name: "dropmalformed with rescue keeps the mismatched record rescued",
			ddl:  "a BIGINT, b STRING, _rescued_data STRING",
			opts: fileformat.ReadOptions{Mode: fileformat.DropMalformed, RescuedDataColumn: rescue, FilePath: "f"},
			want: [][]any{{int64(1), "x", nil}, {nil, "y", `{"a":"two","_file_path":"f"}`}, {int64(4), "z", nil}}, corrupt: 1},
		{name: "failfast without rescue fails at the mismatch",
			ddl:  "a BIGINT, b STRING",
			opts: fileformat.ReadOptions{Mode: fileformat.FailFast, FilePath: "f"},
			want: [][]any{{int64(1), "x"}}, corrupt: 1, failLine: "f line 2"},
		{name: "failfast with rescue fails at the malformed line only",
			ddl:  "a BIGINT, b STRING, _rescued_data STRING",
			opts: fileformat.ReadOptions{Mode: fileformat.FailFast, RescuedDataColumn: rescue, FilePath: "f"},
			want: [][]any{{int64(1), "x", nil}, {nil, "y", `{"a":"two","_file_path":"f"}`}}, corrupt: 1, failLine: "f line 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rr, err := Format{}.Open(context.Background(), strings.NewReader(data), mustDDL(t, tc.ddl), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var rows [][]any
			for {
				row, err := rr.Next()
				if errors.Is(err, io.EOF) {
					if tc.failLine != "" {
						t.Fatalf("read to the end, want a failure at %s", tc.failLine)
					}
					break
				}
				if err != nil {
					if tc.failLine == "" || !errors.Is(err, fileformat.ErrMalformedRecord) || !strings.Contains(err.Error(), tc.failLine) {
						t.Fatalf("err = %v, want ErrMalformedRecord at %q", err, tc.failLine)
					}
					break
				}
				rows = append(rows, row)
			}
			if !reflect.DeepEqual(rows, tc.want) {
				t.Errorf("rows = %#v\nwant %#v", rows, tc.want)
			}
			if got := rr.Stats().CorruptRecords; got != tc.corrupt {
				t.Errorf("CorruptRecords = %d, want %d", got, tc.corrupt)
			}
		})
	}
}

// TestBadRecordsHook: with ReadOptions.BadRecords set, bad records go to
// the hook (line, text, reason) and are left out, whatever the mode.
func TestBadRecordsHook(t *testing.T) {
	const data = `{"a":1}` + "\n" + `{"a":"two"}` + "\n" + "not json\xff" + "\n" + `{"a":[1]}` + "\n" + `{"a":4}` + "\n"
	for _, rescue := range []bool{false, true} {
		for _, mode := range []fileformat.ParseMode{fileformat.Permissive, fileformat.FailFast} {
			ddl, opts := "a BIGINT, _corrupt_record STRING", fileformat.ReadOptions{Mode: mode, FilePath: "f"}
			if rescue {
				ddl, opts.RescuedDataColumn = "a BIGINT, _rescued_data STRING", fileformat.DefaultRescuedDataColumn
			}
			var bad []fileformat.BadRecord
			opts.BadRecords = func(b fileformat.BadRecord) { bad = append(bad, b) }
			rows, st := readAll(t, data, mustDDL(t, ddl), opts)
			var as []any
			for _, r := range rows {
				as = append(as, r[0])
			}
			wantA := []any{int64(1), int64(4)}
			wantLines := []int64{2, 3, 4}
			if rescue {
				wantA = []any{int64(1), nil, nil, int64(4)} // mismatches rescued, rows kept
				wantLines = []int64{3}
			}
			if !reflect.DeepEqual(as, wantA) {
				t.Errorf("rescue=%v %s: a = %v, want %v", rescue, mode, as, wantA)
			}
			var lines []int64
			for _, b := range bad {
				lines = append(lines, b.Line)
				if b.Reason == "" || b.Record == "" {
					t.Errorf("bad record without text or reason: %+v", b)
				}
			}
			if !reflect.DeepEqual(lines, wantLines) {
				t.Errorf("rescue=%v %s: bad lines %v, want %v (%+v)", rescue, mode, lines, wantLines, bad)
			}
			if st.CorruptRecords != int64(len(wantLines)) {
				t.Errorf("CorruptRecords = %d, want %d", st.CorruptRecords, len(wantLines))
			}
			if !rescue {
				if bad[0].Record != `{"a":"two"}` || !strings.Contains(bad[0].Reason, `"two"`) || !strings.Contains(bad[0].Reason, "BIGINT") {
					t.Errorf("mismatch record %+v: want its text and a reason naming value and type", bad[0])
				}
				if bad[1].Record != "not json\uFFFD" || !strings.Contains(bad[1].Reason, "malformed") {
					t.Errorf("malformed record %+v", bad[1])
				}
			}
		}
	}
}

// TestPrimitivesAsString: numbers and booleans infer as strings; objects and
// arrays keep their shape (with inferColumnTypes), as Spark's
// primitivesAsString does.
func TestPrimitivesAsString(t *testing.T) {
	const data = `{"n":1,"d":1.5,"b":true,"s":"x","o":{"x":2},"a":[1,2],"e":""}` + "\n"
	for _, on := range []bool{false, true} {
		inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, PrimitivesAsString: on, PrefersDecimal: true})
		if err := inf.Add(context.Background(), "f", strings.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		want := "a ARRAY<BIGINT>, b BOOLEAN, d DECIMAL(2,1), e STRING, n BIGINT, o STRUCT<x: BIGINT>, s STRING"
		if on {
			want = "a ARRAY<STRING>, b STRING, d STRING, e STRING, n STRING, o STRUCT<x: STRING>, s STRING"
		}
		if got := ddlOf(inf.Schema()); got != want {
			t.Errorf("primitivesAsString=%v: %s\nwant %s", on, got, want)
		}
	}
}

// TestDropFieldIfAllNull: null-only columns, arrays of nulls, empty arrays
// and structs left empty are dropped; otherwise they become strings.
func TestDropFieldIfAllNull(t *testing.T) {
	const data = `{"id":1,"n":null,"e":[],"an":[null],"o":{"x":null},"keep":{"x":null,"y":2}}` + "\n" + `{"id":2,"n":null}` + "\n"
	tests := []struct {
		typed, drop bool
		want        string
	}{
		{true, false, "an ARRAY<STRING>, e ARRAY<STRING>, id BIGINT, keep STRUCT<x: STRING, y: BIGINT>, n STRING, o STRUCT<x: STRING>"},
		{true, true, "id BIGINT, keep STRUCT<y: BIGINT>"},
		{false, false, "an STRING, e STRING, id STRING, keep STRING, n STRING, o STRING"},
		{false, true, "an STRING, e STRING, id STRING, keep STRING, o STRING"},
	}
	for _, tc := range tests {
		inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: tc.typed, DropFieldIfAllNull: tc.drop})
		if err := inf.Add(context.Background(), "f", strings.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		if got := ddlOf(inf.Schema()); got != tc.want {
			t.Errorf("typed=%v drop=%v: %s\nwant %s", tc.typed, tc.drop, got, tc.want)
		}
	}
}

func ddlOf(s *schema.StructType) string {
	var parts []string
	for _, f := range s.Fields {
		parts = append(parts, f.Name+" "+schema.DDLType(f.Type))
	}
	return strings.Join(parts, ", ")
}
