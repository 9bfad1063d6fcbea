package avrofmt

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

const personV1 = `{"type":"record","name":"p","fields":[{"name":"id","type":"int"},{"name":"name","type":"string"}]}`
const personV2 = `{"type":"record","name":"p","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"},{"name":"age","type":["null","int"]}]}`

func TestCodecs(t *testing.T) {
	var recs []any
	for i := range 50 {
		recs = append(recs, map[string]any{"id": i, "name": strings.Repeat("x", i)})
	}
	for _, codec := range []string{"null", "deflate", "snappy", "zstandard"} {
		_, rows, _, err := readRows(t, writeOCF(t, personV1, codec, recs), fileformat.ReadOptions{})
		if err != nil || len(rows) != 50 || rows[49][0] != int32(49) || rows[49][1] != strings.Repeat("x", 49) {
			t.Errorf("%s: %d rows, %v", codec, len(rows), err)
		}
	}
}

func TestMergeAndRescue(t *testing.T) {
	f1 := writeOCF(t, personV1, "null", []any{map[string]any{"id": 1, "name": "John"}})
	f2 := writeOCF(t, personV2, "null", []any{map[string]any{"id": int64(2147483648), "name": "Bob", "age": map[string]any{"int": 25}}})
	inf := Format{}.NewInferrer(fileformat.InferOptions{RescuedDataColumn: "_rescued_data"})
	for _, f := range [][]byte{f1, f2} {
		if err := inf.Add(context.Background(), "f", bytes.NewReader(f)); err != nil {
			t.Fatal(err)
		}
	}
	if got := schema.FormatDDL(hintsOf(inf.Schema())); got != "id BIGINT, name STRING, age INT, _rescued_data STRING" {
		t.Errorf("merged schema %s", got)
	}
	// f2 read with f1's schema: age is a new column, id's long fits BIGINT only.
	inf1 := Format{}.NewInferrer(fileformat.InferOptions{RescuedDataColumn: "_rescued_data"})
	if err := inf1.Add(context.Background(), "f1", bytes.NewReader(f1)); err != nil {
		t.Fatal(err)
	}
	rows, st, err := readWith(t, f2, inf1.Schema(), fileformat.ReadOptions{RescuedDataColumn: "_rescued_data", FilePath: "s3://b/f2.avro"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("%v %v", rows, err)
	}
	want := []any{nil, "Bob", `{"age":25,"id":2147483648,"_file_path":"s3://b/f2.avro"}`}
	if !slices.Equal(rows[0], want) {
		t.Errorf("row %v, want %v", rows[0], want)
	}
	if !slices.Equal(st.UnknownFields, []string{"age"}) || !slices.Equal(st.MismatchedFields, []string{"id"}) {
		t.Errorf("stats %+v", st)
	}
	// Without rescue the values are dropped and counted.
	plain := &schema.StructType{Fields: inf1.Schema().Fields[:2]}
	rows, st, err = readWith(t, f2, plain, fileformat.ReadOptions{})
	if err != nil || rows[0][0] != nil || rows[0][1] != "Bob" || st.ValuesDropped != 2 || st.CorruptRecords != 1 {
		t.Errorf("no rescue: %v %+v %v", rows, st, err)
	}
}

func TestCaseSensitivity(t *testing.T) {
	f := writeOCF(t, `{"type":"record","name":"r","fields":[{"name":"Name","type":"string"}]}`, "null", []any{map[string]any{"Name": "a"}})
	s := &schema.StructType{Fields: []schema.Field{{Name: "name", Type: schema.String, Nullable: true}, {Name: "_rescued_data", Type: schema.String, Nullable: true}}}
	rows, _, err := readWith(t, f, s, fileformat.ReadOptions{RescuedDataColumn: "_rescued_data"})
	if err != nil || rows[0][0] != nil || rows[0][1] != `{"Name":"a"}` {
		t.Errorf("case-sensitive: %v %v", rows, err)
	}
	rows, _, err = readWith(t, f, s, fileformat.ReadOptions{RescuedDataColumn: "_rescued_data", CaseInsensitive: true})
	if err != nil || rows[0][0] != "a" || rows[0][1] != nil {
		t.Errorf("case-insensitive: %v %v", rows, err)
	}
}

func TestAvroSchemaOption(t *testing.T) {
	f := writeOCF(t, personV1, "null", []any{map[string]any{"id": 1, "name": "John"}})
	opts := map[string]string{"avroSchema": personV2}
	s, rows, _, err := readRows(t, f, fileformat.ReadOptions{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if got := schema.FormatDDL(hintsOf(s)); got != "id BIGINT, name STRING, age INT" {
		t.Errorf("schema %s, want the avroSchema's", got)
	}
	if !slices.Equal(rows[0], []any{int64(1), "John", nil}) {
		t.Errorf("row %v", rows[0])
	}
	inf := Format{}.NewInferrer(fileformat.InferOptions{Options: map[string]string{"avroschema": "{nope"}})
	if err := inf.Add(context.Background(), "f", bytes.NewReader(f)); !errors.Is(err, fileformat.ErrBadOption) {
		t.Errorf("bad avroSchema: %v, want ErrBadOption", err)
	}
}

func TestSchemaErrors(t *testing.T) {
	for name, s := range map[string]string{
		"recursive":    `{"type":"record","name":"node","fields":[{"name":"next","type":["null","node"]}]}`,
		"wide decimal": `{"type":"record","name":"r","fields":[{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":40,"scale":0}}]}`,
		"not a record": `"string"`,
	} {
		if _, err := ParseSchema(s); !errors.Is(err, ErrSchema) {
			t.Errorf("%s: %v, want ErrSchema", name, err)
		}
	}
}

func TestCorrupt(t *testing.T) {
	var recs []any
	for i := range 10 {
		recs = append(recs, map[string]any{"id": i, "name": "n"})
	}
	good := writeOCF(t, personV1, "deflate", recs)
	for name, data := range map[string][]byte{
		"empty":     {},
		"not avro":  []byte("id,name\n1,a\n"),
		"truncated": good[:len(good)-10],
		"bad sync":  append(append([]byte{}, good[:len(good)-1]...), good[len(good)-1]^0xff),
	} {
		rows, _, err := readWith(t, data, &schema.StructType{Fields: []schema.Field{{Name: "id", Type: schema.Integer}}}, fileformat.ReadOptions{})
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %d rows, %v; want ErrCorrupt", name, len(rows), err)
		}
	}
}

// FuzzRead: no input panics or hangs; a file either reads or fails with
// ErrCorrupt / ErrSchema.
func FuzzRead(f *testing.F) {
	f.Add(writeOCF(f, personV2, "null", []any{map[string]any{"id": int64(1), "name": "a", "age": nil}}))
	f.Add(writeOCF(f, personV1, "deflate", []any{map[string]any{"id": 1, "name": "a"}}))
	f.Add(writeOCF(f, personV1, "snappy", []any{map[string]any{"id": 1, "name": "a"}}))
	for _, tc := range goldenCases {
		f.Add(writeOCF(f, tc.schema, "null", tc.records))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &schema.StructType{Fields: []schema.Field{{Name: "id", Type: schema.Long, Nullable: true}, {Name: "_rescued_data", Type: schema.String, Nullable: true}}}
		_, _, err := readWith(t, data, s, fileformat.ReadOptions{RescuedDataColumn: "_rescued_data"})
		if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchema) {
			t.Fatalf("error %v is neither ErrCorrupt nor ErrSchema", err)
		}
		inf := Format{}.NewInferrer(fileformat.InferOptions{})
		if err := inf.Add(context.Background(), "f", bytes.NewReader(data)); err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchema) {
			t.Fatalf("inference error %v is neither ErrCorrupt nor ErrSchema", err)
		}
	})
}
