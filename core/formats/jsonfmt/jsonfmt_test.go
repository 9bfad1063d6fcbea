package jsonfmt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsontape"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

func mustDDL(t testing.TB, ddl string) *schema.StructType {
	t.Helper()
	hs, err := schema.ParseDDL(ddl)
	if err != nil {
		t.Fatal(err)
	}
	return schema.ApplyHints(nil, hs)
}

func readAll(t testing.TB, data string, s *schema.StructType, opts fileformat.ReadOptions) ([][]any, fileformat.ReadStats) {
	t.Helper()
	rr, err := Format{}.Open(context.Background(), strings.NewReader(data), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	var rows [][]any
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			return rows, rr.Stats()
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
}

// TestSeed002 is the acceptance example of seed 002 (Auto Loader type
// widening page): a table id INT, name STRING then a file whose id is
// 2147483648 and which has a new column age. Schema evolution itself is
// decided by the caller; this pins what the reader produces for the schemas
// of each mode.
func TestSeed002(t *testing.T) {
	const first = `{"id": 1, "name": "John"}` + "\n" + `{"id": 2, "name": "Mary"}` + "\n"
	const second = `{"id": 2147483648, "name": "Bob", "age": 25}` + "\n"
	const path = "s3://bucket/in/2.json"
	rescue := fileformat.DefaultRescuedDataColumn

	// The first file infers id and name (inferColumnTypes, as in the seed's
	// CSV example) — JSON integers infer as BIGINT, so the seed's INT table
	// is given explicitly below.
	inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, RescuedDataColumn: rescue})
	if err := inf.Add(context.Background(), "1.json", strings.NewReader(first)); err != nil {
		t.Fatal(err)
	}
	if got, want := inf.Schema(), mustDDL(t, "id BIGINT, name STRING, _rescued_data STRING"); !schema.Equal(got, want) {
		t.Errorf("inferred %s, want %s", got, want)
	}

	tests := []struct {
		mode   string
		schema string
		opts   fileformat.ReadOptions
		want   []any
		unkn   []string
	}{
		// rescue: never evolves; the mismatched id and the new age are rescued.
		{"rescue", "id INT, name STRING, _rescued_data STRING",
			fileformat.ReadOptions{RescuedDataColumn: rescue, FilePath: path},
			[]any{nil, "Bob", `{"age":25,"id":2147483648,"_file_path":"s3://bucket/in/2.json"}`}, []string{"age"}},
		// addNewColumns / failOnNewColumns after the schema gained age:
		// only the mismatched id is rescued.
		{"addNewColumns", "id INT, name STRING, age INT, _rescued_data STRING",
			fileformat.ReadOptions{RescuedDataColumn: rescue, FilePath: path},
			[]any{nil, "Bob", int32(25), `{"id":2147483648,"_file_path":"s3://bucket/in/2.json"}`}, nil},
		// none without rescuedDataColumn: age ignored, id null.
		{"none", "id INT, name STRING",
			fileformat.ReadOptions{FilePath: path},
			[]any{nil, "Bob"}, []string{"age"}},
		// addNewColumnsWithTypeWidening: id widened to BIGINT, nothing rescued.
		{"addNewColumnsWithTypeWidening", "id BIGINT, name STRING, age INT, _rescued_data STRING",
			fileformat.ReadOptions{RescuedDataColumn: rescue, FilePath: path},
			[]any{int64(2147483648), "Bob", int32(25), nil}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			s := mustDDL(t, tc.schema)
			rows, st := readAll(t, first+second, s, tc.opts)
			if len(rows) != 3 {
				t.Fatalf("got %d rows, want 3", len(rows))
			}
			var one, two any = int32(1), int32(2)
			if s.Fields[0].Type == schema.Long {
				one, two = int64(1), int64(2)
			}
			if rows[0][0] != one || rows[0][1] != "John" || rows[1][0] != two || rows[1][1] != "Mary" {
				t.Errorf("first rows = %v %v", rows[0], rows[1])
			}
			if !reflect.DeepEqual(rows[2], tc.want) {
				t.Errorf("Bob's row = %#v, want %#v", rows[2], tc.want)
			}
			if !reflect.DeepEqual(st.UnknownFields, tc.unkn) {
				t.Errorf("UnknownFields = %v, want %v", st.UnknownFields, tc.unkn)
			}
			wantRescued := int64(0)
			if s := tc.want[len(tc.want)-1]; s != nil && tc.opts.RescuedDataColumn != "" {
				wantRescued = 1
			}
			if st.RowsRescued != wantRescued {
				t.Errorf("RowsRescued = %d, want %d", st.RowsRescued, wantRescued)
			}
		})
	}
}

func TestFailFast(t *testing.T) {
	data := "{\"a\":1}\n\n{\"a\":\n{\"a\":3}\n"
	s := mustDDL(t, "a BIGINT")
	rr, err := Format{}.Open(context.Background(), strings.NewReader(data), s,
		fileformat.ReadOptions{Mode: fileformat.FailFast, FilePath: "s3://b/k.json"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rr.Next(); err != nil {
		t.Fatal(err)
	}
	_, err = rr.Next()
	if !errors.Is(err, fileformat.ErrMalformedRecord) || !strings.Contains(err.Error(), "s3://b/k.json line 3") {
		t.Fatalf("err = %v, want ErrMalformedRecord naming file and line 3", err)
	}

	inf := Format{}.NewInferrer(fileformat.InferOptions{Mode: "failfast"})
	err = inf.Add(context.Background(), "k.json", strings.NewReader(data))
	if !errors.Is(err, fileformat.ErrMalformedRecord) || !strings.Contains(err.Error(), "k.json line 3") {
		t.Fatalf("infer err = %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name string
		s    *schema.StructType
		opts fileformat.ReadOptions
		want error
	}{
		{"nil schema", nil, fileformat.ReadOptions{}, fileformat.ErrReadSchema},
		{"missing rescue column", mustDDL(t, "a INT"), fileformat.ReadOptions{RescuedDataColumn: "_rescued_data"}, fileformat.ErrReadSchema},
		{"rescue column not string", mustDDL(t, "a INT, _rescued_data INT"), fileformat.ReadOptions{RescuedDataColumn: "_rescued_data"}, fileformat.ErrReadSchema},
		{"bad mode", mustDDL(t, "a INT"), fileformat.ReadOptions{Mode: "LENIENT"}, fileformat.ErrBadOption},
	}
	for _, tc := range tests {
		_, err := Format{}.Open(context.Background(), strings.NewReader(""), tc.s, tc.opts)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	inf := Format{}.NewInferrer(fileformat.InferOptions{Mode: "nope"})
	if err := inf.Add(context.Background(), "x", strings.NewReader("{}")); !errors.Is(err, fileformat.ErrBadOption) {
		t.Errorf("inferrer bad mode: err = %v", err)
	}
}

func TestSampleBudget(t *testing.T) {
	line := `{"a":1}` + "\n" // 8 bytes
	inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, MaxBytes: 20})
	ctx := context.Background()
	if err := inf.Add(ctx, "1.json", strings.NewReader(strings.Repeat(line, 2))); err != nil {
		t.Fatal(err)
	}
	if inf.Full() {
		t.Fatal("full after 16 of 20 bytes")
	}
	// This file crosses the budget: read whole.
	if err := inf.Add(ctx, "2.json", strings.NewReader(strings.Repeat(`{"b":true}`+"\n", 3))); err != nil {
		t.Fatal(err)
	}
	if !inf.Full() {
		t.Fatal("not full after 49 of 20 bytes")
	}
	err := inf.Add(ctx, "3.json", strings.NewReader(`{"c":1}`))
	if !errors.Is(err, fileformat.ErrSampleFull) || !strings.Contains(err.Error(), "3.json") {
		t.Fatalf("err = %v, want ErrSampleFull naming 3.json", err)
	}
	if got, want := inf.Sampled(), (fileformat.Sample{Files: 2, Bytes: 49, Records: 5}); got != want {
		t.Errorf("Sampled = %+v", got)
	}
	if got, want := inf.Schema(), mustDDL(t, "a BIGINT, b BOOLEAN"); !schema.Equal(got, want) {
		t.Errorf("schema %s, want %s", got, want)
	}
}

func TestEmptySample(t *testing.T) {
	hs, _ := schema.ParseDDL("x INT")
	inf := Format{}.NewInferrer(fileformat.InferOptions{Hints: hs, RescuedDataColumn: "_r"})
	if err := inf.Add(context.Background(), "e.json", strings.NewReader("\n \n")); err != nil {
		t.Fatal(err)
	}
	if inf.Sampled().Records != 0 {
		t.Errorf("records = %d", inf.Sampled().Records)
	}
	if got, want := inf.Schema(), mustDDL(t, "x INT, _r STRING"); !schema.Equal(got, want) {
		t.Errorf("schema %s, want %s", got, want)
	}
}

func TestRescuedColumnNameInData(t *testing.T) {
	data := `{"a":"x","_rescued_data":"from data","_Rescued_Data":1}` + "\n"
	inf := Format{}.NewInferrer(fileformat.InferOptions{RescuedDataColumn: "_rescued_data"})
	if err := inf.Add(context.Background(), "f", strings.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	s := inf.Schema()
	if want := mustDDL(t, "a STRING, _rescued_data STRING"); !schema.Equal(s, want) {
		t.Fatalf("schema %s, want %s", s, want)
	}
	rows, _ := readAll(t, data, s, fileformat.ReadOptions{RescuedDataColumn: "_rescued_data"})
	want := `{"_Rescued_Data":1,"_rescued_data":"from data"}`
	if rows[0][1] != want {
		t.Errorf("rescued = %v, want %s", rows[0][1], want)
	}
}

func TestLongLinesAndNoFinalNewline(t *testing.T) {
	big := strings.Repeat("x", 200<<10) // longer than the 64 KiB buffer
	data := fmt.Sprintf("{\"s\":%q}\r\n{\"s\":\"end\"}", big)
	rows, _ := readAll(t, data, mustDDL(t, "s STRING"), fileformat.ReadOptions{})
	if len(rows) != 2 || rows[0][0] != big || rows[1][0] != "end" {
		t.Fatalf("got %d rows", len(rows))
	}
}

func TestContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	data := strings.Repeat(`{"a":1}`+"\n", 5000)
	rr, err := Format{}.Open(ctx, strings.NewReader(data), mustDDL(t, "a BIGINT"), fileformat.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		_, err := rr.Next()
		if errors.Is(err, context.Canceled) {
			break
		}
		if err != nil {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	}
	inf := Format{}.NewInferrer(fileformat.InferOptions{})
	if err := inf.Add(ctx, "f", strings.NewReader(data)); !errors.Is(err, context.Canceled) {
		t.Errorf("Add err = %v", err)
	}
}

func TestTapeStrings(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`"a\"b\\c\/d\b\f\n\r\t"`, "a\"b\\c/d\b\f\n\r\t"},
		{`"\u00e9\u20AC"`, "é€"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ud83dx"`, "\ufffdx"},
		{`"\ude00"`, "\ufffd"},
		{"\"bad \xff byte\"", "bad \ufffd byte"},
		{"\"esc \\n and \xff\"", "esc \n and \ufffd"},
	}
	var tp jsontape.Tape
	for _, tc := range tests {
		if err := tp.Parse([]byte(tc.in)); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got := tp.Text(0); got != tc.want {
			t.Errorf("text(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{`"\x"`, `"\u12"`, "\"a\tb\"", `"open`, `{"a" 1}`, `[1,]`, `01`, `1.`, `-`, `1e`, `tru`, `{"a":1}}`, `{1:2}`, ``, `NaNa`} {
		if err := tp.Parse([]byte(bad)); err == nil {
			t.Errorf("parse(%q) succeeded", bad)
		}
	}
	deep := strings.Repeat("[", jsontape.MaxDepth+1) + strings.Repeat("]", jsontape.MaxDepth+1)
	if err := tp.Parse([]byte(deep)); err == nil || !strings.Contains(err.Error(), "nesting") {
		t.Errorf("deep nesting: err = %v", err)
	}
}

// FuzzTape checks the tape parser against encoding/json: the same inputs are
// valid, and valid inputs decode to the same values.
func FuzzTape(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1,"x",{"b":null}]`, `"\ud83d\ude00"`, `{"a":{"b":[true,false]}}`, `1e5`, `-0.5`, " {\"a\" : \"b\"} ", `{"a":1,"a":2}`, "\"\xff\"", `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Contains(data, []byte("NaN")) || bytes.Contains(data, []byte("Infinity")) {
			return // accepted by tape only
		}
		var tp jsontape.Tape
		err := tp.Parse(data)
		valid := json.Valid(data)
		if (err == nil) != valid {
			if err != nil && strings.Contains(err.Error(), "nesting") {
				return
			}
			t.Fatalf("tape err = %v, json.Valid = %v for %q", err, valid, data)
		}
		if err != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if got := tapeValue(&tp, 0); !reflect.DeepEqual(got, want) {
			t.Fatalf("tape value %#v, encoding/json %#v for %q", got, want, data)
		}
	})
}

// tapeValue converts node n to encoding/json's generic form (last key wins).
func tapeValue(tp *jsontape.Tape, n int) any {
	nd := tp.Nodes[n]
	switch nd.Kind {
	case jsontape.KNull:
		return nil
	case jsontape.KTrue:
		return true
	case jsontape.KFalse:
		return false
	case jsontape.KNumber:
		return json.Number(tp.Raw(n))
	case jsontape.KString:
		return tp.Text(n)
	case jsontape.KArray:
		out := []any{}
		for c := n + 1; c < int(nd.Next); c = int(tp.Nodes[c].Next) {
			out = append(out, tapeValue(tp, c))
		}
		return out
	}
	out := map[string]any{}
	for k := n + 1; k < int(nd.Next); {
		out[tp.Text(k)] = tapeValue(tp, k+1)
		k = int(tp.Nodes[k+1].Next)
	}
	return out
}

// FuzzReader infers a schema from arbitrary input and reads the input with
// it: nothing panics, every non-blank line becomes rows or a corrupt record,
// and — unless the input has empty strings, which inference treats as null
// but typed columns reject, as Spark does — no value mismatches its own
// inferred type and none is dropped.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"{\"a\":1,\"b\":\"x\"}\n{\"a\":2.5,\"c\":[1,2]}\n",
		"{\"o\":{\"x\":1}}\n{\"o\":{\"y\":[true]}}\n",
		"[{\"a\":1},{\"a\":\"s\"}]\n",
		"{\"big\":123456789012345678901234567890,\"n\":NaN}\n{\"big\":1}\n",
		"{\"A\":1,\"a\":2}\n",
		"not json\n{\"a\":null}\n",
		"{\"d\":1.5e300}\n{\"d\":-1}\n",
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, typed bool) {
		ctx := context.Background()
		for _, pd := range []bool{false, true} {
			inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: typed, PrefersDecimal: pd, RescuedDataColumn: "_rescued_data"})
			if err := inf.Add(ctx, "fuzz.json", bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
			s := inf.Schema()
			rr, err := Format{}.Open(ctx, bytes.NewReader(data), s, fileformat.ReadOptions{RescuedDataColumn: "_rescued_data", FilePath: "fuzz.json"})
			if err != nil {
				t.Fatal(err)
			}
			for {
				row, err := rr.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(row) != len(s.Fields) {
					t.Fatalf("row width %d, schema %d", len(row), len(s.Fields))
				}
				if r, ok := row[len(row)-1].(string); ok && !json.Valid([]byte(r)) {
					t.Fatalf("rescued data is not JSON: %q", r)
				}
			}
			st := rr.Stats()
			if st.CorruptRecords > 0 && inf.Sampled().Records == 0 && st.RowsRead == 0 {
				t.Fatalf("corrupt records were not returned as rows")
			}
			if bytes.Contains(data, []byte(`""`)) {
				continue
			}
			if len(st.MismatchedFields) > 0 || st.ValuesDropped > 0 {
				t.Fatalf("reading with the inferred schema %s: stats %+v", s, st)
			}
		}
	})
}
