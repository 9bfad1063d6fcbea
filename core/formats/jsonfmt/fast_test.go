package jsonfmt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// cleanGen makes schemas of the types the fast decoder (jsonfast) covers
// and records that fit them, in the forms standard JSON allows (escapes,
// non-ASCII text, nulls, missing and reordered fields, white space, empty
// arrays and objects, numbers in every notation).
type cleanGen struct{ r *rand.Rand }

func (g cleanGen) typ(depth int) schema.Type {
	k := g.r.IntN(10)
	if depth >= 3 {
		k = g.r.IntN(6)
	}
	switch {
	case k < 6:
		if g.r.IntN(4) == 0 { // a type converted through Decoder.Other
			return []schema.Type{schema.Integer, schema.Short, schema.Float, schema.Timestamp, schema.TimestampNTZ,
				schema.DateType, schema.Binary, schema.DecimalType{Precision: 10, Scale: 2}}[g.r.IntN(8)]
		}
		return []schema.Type{schema.String, schema.String, schema.Long, schema.Double, schema.Boolean, schema.Long}[k]
	case k < 8:
		return g.structType(depth+1, 1+g.r.IntN(4))
	default:
		return &schema.ArrayType{Element: g.typ(depth + 1), ContainsNull: true}
	}
}

func (g cleanGen) structType(depth, n int) *schema.StructType {
	st := &schema.StructType{}
	for i := range n {
		st.Fields = append(st.Fields, schema.Field{Name: fmt.Sprintf("%c%d", 'a'+rune(g.r.IntN(26)), i), Type: g.typ(depth), Nullable: true})
	}
	return st
}

// ws is white space inside a line (a '\r' would end the line).
func (g cleanGen) ws() string { return []string{"", "", "", " ", "\t", " \t "}[g.r.IntN(6)] }

func (g cleanGen) pick(s ...string) string { return s[g.r.IntN(len(s))] }

func (g cleanGen) value(t schema.Type) string {
	if g.r.IntN(10) == 0 {
		return "null"
	}
	switch t := t.(type) {
	case *schema.StructType:
		return g.object(t)
	case *schema.ArrayType:
		parts := make([]string, g.r.IntN(4))
		for i := range parts {
			parts[i] = g.ws() + g.value(t.Element) + g.ws()
		}
		return "[" + g.ws() + strings.Join(parts, ",") + "]"
	}
	switch t {
	case schema.String:
		return g.pick(`"plain"`, `""`, `"Grüße ✓"`, `"a\"b\\c\u00e9\ud83d\ude00\/\b\f\n\r\t"`, `"\ud800x"`,
			`"`+strings.Repeat("lorem ipsum ", 1+g.r.IntN(6))+`"`, fmt.Sprintf(`"s%d"`, g.r.IntN(100)),
			"12", "-0.5e3", "0", "true", "false", `"\u0000"`)
	case schema.Long:
		return g.pick(fmt.Sprint(g.r.Int64N(2000)-1000), "0", "-0", "999999999999999999", "-999999999999999999", fmt.Sprint(g.r.Int64()>>10))
	case schema.Double:
		return g.pick(fmt.Sprintf("%.6f", g.r.Float64()*1e4-5e3), "-0.0", "2.5e-3", "1E+2", "1e400", "-1e-400", "123",
			"0.1", "9007199254740993", "3.141592653589793238", fmt.Sprint(g.r.Int64()), "12345678901234567890.5")
	case schema.Boolean:
		return g.pick("true", "false")
	case schema.Integer, schema.Short:
		return g.pick("0", "-12", "300")
	case schema.Float:
		return g.pick("1.5", "-2e3", "7", `"NaN"`, `"-Infinity"`)
	case schema.Timestamp:
		return g.pick(`"2024-03-01T00:00:00.037527Z"`, `"2024-03-01 10:11:12"`, "1700000000", `"2024-03-01T00:00:00+02:00"`)
	case schema.TimestampNTZ:
		return g.pick(`"2024-03-01T00:00:00.5"`, `"2024-03-01 10:11:12"`)
	case schema.DateType:
		return g.pick(`"2024-03-01"`, `"1999-12-31"`)
	case schema.Binary:
		return g.pick(`"aGVsbG8="`, `"aGVsbG8"`, `""`)
	case schema.DecimalType{Precision: 10, Scale: 2}:
		return g.pick("1.5", "-0.25", `"3.14"`, "12345", "1e3")
	}
	return "null"
}

func (g cleanGen) object(st *schema.StructType) string {
	var parts []string
	for _, i := range g.r.Perm(len(st.Fields)) {
		if g.r.IntN(6) == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s%q%s:%s%s%s", g.ws(), st.Fields[i].Name, g.ws(), g.ws(), g.value(st.Fields[i].Type), g.ws()))
	}
	return "{" + g.ws() + strings.Join(parts, ",") + "}"
}

func (g cleanGen) randomCase() randomCase {
	s := g.structType(0, 1+g.r.IntN(6))
	var doc strings.Builder
	for range 1 + g.r.IntN(30) {
		doc.WriteString(g.ws() + g.object(s) + g.ws() + g.pick("\n", "\r\n"))
	}
	opts := fileformat.ReadOptions{FilePath: "s3://b/in/f.json"}
	switch g.r.IntN(3) {
	case 0:
		opts.RescuedDataColumn = fileformat.DefaultRescuedDataColumn
		s.Fields = append(s.Fields, schema.Field{Name: opts.RescuedDataColumn, Type: schema.String, Nullable: true})
	case 1:
		s.Fields = append(s.Fields, schema.Field{Name: fileformat.DefaultCorruptRecordColumn, Type: schema.String, Nullable: true})
	}
	return randomCase{s: s, doc: doc.String(), opts: opts}
}

// TestFastDecoderMatchesRows checks the fast decoder on records it
// covers: it decodes every one of them (no fallback to the tape), and the
// result is the row path's and the tape batch path's.
func TestFastDecoderMatchesRows(t *testing.T) {
	g := cleanGen{rand.New(rand.NewPCG(5, 2026))}
	for i := range 300 {
		c := g.randomCase()
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var rd *reader
			col := batchPath(t, c.doc, c.s, c.opts, 1+i%5, 1, 0, func(r *reader) { rd = r })
			if rd.fastTries == 0 || rd.fastMisses != 0 {
				t.Fatalf("fast decoder tried %d records, gave up on %d; schema %s, document:\n%s", rd.fastTries, rd.fastMisses, c.s, c.doc)
			}
			compareResults(t, rowPath(t, c.doc, c.s, c.opts), col, fmt.Sprintf("schema %s, document:\n%s", c.s, c.doc))
			checkSamePaths(t, c, 1+i%5)
		})
	}
}

// TestFastDecoderFallsBack checks records the fast decoder must leave to
// the tape path: it gives up on them, and the result is the row path's.
func TestFastDecoderFallsBack(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "s", Type: schema.String, Nullable: true},
		{Name: "l", Type: schema.Long, Nullable: true},
		{Name: "d", Type: schema.Double, Nullable: true},
		{Name: "b", Type: schema.Boolean, Nullable: true},
		{Name: "ts", Type: schema.Timestamp, Nullable: true},
		{Name: "o", Type: &schema.StructType{Fields: []schema.Field{{Name: "x", Type: schema.Long, Nullable: true}}}, Nullable: true},
		{Name: "a", Type: &schema.ArrayType{Element: schema.Long, ContainsNull: true}, Nullable: true},
		{Name: "_rescued_data", Type: schema.String, Nullable: true},
	}}
	for _, tc := range []struct {
		name, line string
		rescueOnly bool // a miss only with a rescued data column
	}{
		{"unknown key", `{"s":"x","zz":1}`, false},
		{"key differing in case", `{"S":"x"}`, false},
		{"repeated key", `{"l":1,"l":2}`, false},
		{"escaped key", `{"\u0073":"x"}`, false},
		{"rescued column as a key", `{"_rescued_data":"x"}`, true},
		{"single quotes", `{'s':'x'}`, false},
		{"NaN", `{"d":NaN}`, false},
		{"infinity", `{"d":-Infinity}`, false},
		{"leading zero", `{"l":007}`, false},
		{"fraction into long", `{"l":1.0}`, false},
		{"19 digits into long", `{"l":1234567890123456789}`, false},
		{"string into double", `{"d":"NaN"}`, false},
		{"string into bool", `{"b":"true"}`, false},
		{"object into string", `{"s":{"q":1}}`, false},
		{"array into string", `{"s":[1]}`, false},
		{"not a timestamp", `{"ts":"yesterday"}`, false},
		{"fraction into timestamp", `{"ts":1.5}`, false},
		{"object into timestamp", `{"ts":{"a":1}}`, false},
		{"number into struct", `{"o":1}`, false},
		{"string in long array", `{"a":[1,"x"]}`, false},
		{"invalid UTF-8", "{\"s\":\"\xff\"}", false},
		{"control character", "{\"s\":\"a\tb\"}", false},
		{"bad escape", `{"s":"\q"}`, false},
		{"top-level array", `[{"s":"x"},{"s":"y"}]`, false},
		{"not an object", `42`, false},
		{"malformed", `{"s":"x"`, false},
		{"trailing data", `{"s":"x"} 1`, false},
		{"trailing comma", `{"s":"x",}`, false},
		{"nested unknown key", `{"o":{"x":1,"y":2}}`, false},
		{"literal typo", `{"b":tru}`, false},
		{"null typo", `{"b":nul}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := `{"s":"ok","l":1}` + "\n" + tc.line + "\n"
			for _, opts := range []fileformat.ReadOptions{
				{FilePath: "f.json", RescuedDataColumn: "_rescued_data"},
				{FilePath: "f.json", Mode: fileformat.DropMalformed},
			} {
				var rd *reader
				col := batchPath(t, doc, s, opts, 4, 1, 0, func(r *reader) { rd = r })
				misses := 1
				if tc.rescueOnly && opts.RescuedDataColumn == "" {
					misses = 0
				}
				if rd.fastTries != 2 || rd.fastMisses != misses {
					t.Fatalf("options %+v: fast decoder tried %d records, gave up on %d; want 2 and %d", opts, rd.fastTries, rd.fastMisses, misses)
				}
				compareResults(t, rowPath(t, doc, s, opts), col, doc)
			}
		})
	}
}

// FuzzFastDecode runs the differential check (row path, batch path with
// and without the fast decoder, serial and parallel) on fuzzed documents
// against a schema of the fast decoder's types drawn from the seed.
func FuzzFastDecode(f *testing.F) {
	f.Add(uint64(1), `{"a0":"x","b1":1}`)
	f.Add(uint64(2), ` { "a0" : [ 1 , 2 ] } `+"\r\n"+`{"a0":null}`)
	f.Add(uint64(3), `{"a0":"\u00e9\"","a0":1}`+"\n"+`{"a0":1e400}`)
	f.Add(uint64(4), `{"a0":01,"b1":-007}`+"\n"+`{"b1":0.5,"a0":00}`+"\n"+`{"a0":0}`) // leading zeros
	f.Fuzz(func(t *testing.T, seed uint64, doc string) {
		g := cleanGen{rand.New(rand.NewPCG(seed, 9))}
		c := g.randomCase()
		c.doc = doc
		checkSamePaths(t, c, 1+int(seed%4))
	})
}
